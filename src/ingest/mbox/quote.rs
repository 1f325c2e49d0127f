//! Strip quoted reply text from an email body. The earlier message is already
//! indexed on its own; its copies in every reply would flood results with
//! near-duplicates.

/// Remove lines beginning with `>`, the "On ... wrote:" attribution above a
/// quoted block (also when a client wrapped it over two lines), and an
/// Outlook-style "-----Original Message-----" trailer with everything after it.
pub fn strip_quoted(body: &str) -> String {
    let lines: Vec<&str> = body.lines().collect();
    let mut keep = vec![true; lines.len()];
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if t.starts_with('>') {
            keep[i] = false;
            continue;
        }
        if is_outlook_separator(t) {
            keep[i..].iter_mut().for_each(|k| *k = false);
            break;
        }
    }
    // Attribution lines: "On <date>, <name> wrote:" directly above a quote,
    // possibly separated by blank lines.
    for i in 0..lines.len() {
        if !keep[i] || !lines[i].trim_end().ends_with("wrote:") {
            continue;
        }
        let next_quoted = lines[i + 1..]
            .iter()
            .zip(&keep[i + 1..])
            .find(|(l, _)| !l.trim().is_empty())
            .is_some_and(|(_, k)| !k);
        if !next_quoted {
            continue;
        }
        keep[i] = false;
        let t = lines[i].trim_start();
        if !t.starts_with("On ") && i > 0 && lines[i - 1].trim_start().starts_with("On ") {
            keep[i - 1] = false;
        }
    }
    let mut out = String::with_capacity(body.len());
    for (line, k) in lines.iter().zip(keep) {
        if k {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn is_outlook_separator(t: &str) -> bool {
    let t = t.trim();
    t.starts_with("-----")
        && t.trim_matches('-')
            .trim()
            .eq_ignore_ascii_case("original message")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_lines_and_attribution_go() {
        let body = "Sounds good, see you then.\n\nOn Mon, 12 Jan 2026 at 09:14, Jane Tan <jane@acme.example> wrote:\n> Can we meet Tuesday?\n> Jane\n";
        assert_eq!(strip_quoted(body), "Sounds good, see you then.\n\n");
    }

    #[test]
    fn a_wrapped_attribution_goes_too() {
        let body =
            "Yes.\nOn Mon, 12 Jan 2026 at 09:14, Jane Tan <\njane@acme.example> wrote:\n\n> old\n";
        assert_eq!(strip_quoted(body), "Yes.\n\n");
    }

    #[test]
    fn wrote_without_a_quote_below_stays() {
        let body = "My sister wrote:\nthe best poem.\n";
        assert_eq!(strip_quoted(body), body);
    }

    #[test]
    fn outlook_trailer_goes() {
        let body =
            "Fine by me.\n\n-----Original Message-----\nFrom: Jane\nSubject: x\n\nold text\n";
        assert_eq!(strip_quoted(body), "Fine by me.\n\n");
    }
}
