//! In-process embedding speed of a BERT model folder (issue 8's target:
//! 150 chunks/s on this 2-core machine), by text length, batch size and
//! threads. The texts are drawn from a fixed seed over a fixed word list, so
//! runs compare; the token counts are printed beside the figures.
//!
//! Usage: cargo bench --bench embed -- MODEL_FOLDER [SECONDS_PER_CASE]

use std::path::Path;
use std::time::Instant;

use alfred_mem::embed::Embedder;
use alfred_mem::embed::bert::BertEmbedder;
use alfred_mem::lcg::Lcg;

const WORDS: &[&str] = &[
    "the", "budget", "meeting", "moved", "to", "thursday", "and", "we", "agreed", "on", "a", "new",
    "plan", "for", "spending", "in", "q3", "please", "send", "invoice", "by", "friday", "thanks",
    "flight", "hotel", "booked", "dinner", "with", "anna", "tomorrow", "evening", "project",
    "deadline", "review", "notes", "attached", "kind", "regards", "call", "me",
];

fn texts(n: usize, words: usize, seed: u64) -> Vec<String> {
    let mut r = Lcg(seed);
    (0..n)
        .map(|_| {
            (0..words)
                .map(|_| *r.pick(WORDS))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let Some(folder) = args.first() else {
        eprintln!("usage: cargo bench --bench embed -- MODEL_FOLDER [SECONDS_PER_CASE]");
        std::process::exit(2);
    };
    let seconds: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5.0);
    let started = Instant::now();
    let mut m = BertEmbedder::open(Path::new(folder)).expect("load the model");
    println!(
        "model load: {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    println!("words/text  batch  threads  chunks/s");
    for words in [20, 60, 200] {
        for (batch, threads) in [(1, 1), (32, 1), (32, 2), (64, 2)] {
            m = m.with_threads(threads);
            let pool = texts(4096, words, 7 + words as u64);
            let (mut done, t0) = (0, Instant::now());
            while t0.elapsed().as_secs_f64() < seconds {
                let b: Vec<&str> = pool[done % 4000..done % 4000 + batch]
                    .iter()
                    .map(String::as_str)
                    .collect();
                m.embed(&b).expect("embed");
                done += batch;
            }
            let rate = done as f64 / t0.elapsed().as_secs_f64();
            println!("{words:>10}  {batch:>5}  {threads:>7}  {rate:>8.1}");
        }
    }
    // What the bf16 tiles cost in precision: the same texts through the
    // f32 pass (`without_amx`), compared vector by vector.
    println!("words/text  cosine tiles vs f32 (min, mean over 256 texts)");
    let mut exact = BertEmbedder::open(Path::new(folder))
        .expect("load the model")
        .without_amx();
    for words in [20, 60, 200] {
        let pool = texts(256, words, 99 + words as u64);
        let b: Vec<&str> = pool.iter().map(String::as_str).collect();
        let (fast, slow) = (m.embed(&b).expect("embed"), exact.embed(&b).expect("embed"));
        let cos: Vec<f32> = fast
            .iter()
            .zip(&slow)
            .map(|(a, b)| a.iter().zip(b).map(|(x, y)| x * y).sum())
            .collect();
        let min = cos.iter().copied().fold(f32::INFINITY, f32::min);
        let mean = cos.iter().sum::<f32>() / cos.len() as f32;
        println!("{words:>10}  {min:.6}, {mean:.6}");
    }
}
