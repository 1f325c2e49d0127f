//! Stable keys for search queries, so the recall log can count how many
//! *distinct* questions recalled a chunk: trivially different spellings of the
//! same query (case, spacing) must collapse to one key.

use sha2::{Digest, Sha256};

/// Trims, collapses every run of Unicode whitespace to one ASCII space, and
/// lowercases with Unicode rules. Punctuation and word forms are left alone:
/// "contract" vs "contracts" may be genuinely different questions, and
/// over-merging would inflate nothing but hide real diversity.
pub fn normalise_query(q: &str) -> String {
    q.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Lowercase hex SHA-256 of [`normalise_query`]. Hashed so the recall log
/// stores a fixed-width key rather than raw query text.
pub fn query_hash(q: &str) -> String {
    hex::encode(Sha256::digest(normalise_query(q).as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalise_table() {
        let cases: &[(&str, &str)] = &[
            ("Acme contract", "acme contract"),
            ("  acme   contract ", "acme contract"),
            ("acme\tcontract\n", "acme contract"),
            ("acme\u{00A0}\u{2003}contract", "acme contract"),
            ("ÜBER Straße", "über straße"),
            ("", ""),
            (" \t\n ", ""),
        ];
        for (input, want) in cases {
            assert_eq!(normalise_query(input), *want, "{input:?}");
        }
    }

    #[test]
    fn equivalent_queries_hash_equal() {
        let base = query_hash("Acme contract");
        for q in [" acme  contract ", "ACME CONTRACT", "acme\tcontract\n"] {
            assert_eq!(query_hash(q), base, "{q:?}");
        }
        assert_ne!(query_hash("acme contracts"), base);
    }

    #[test]
    fn hash_is_lowercase_sha256_hex() {
        // sha256("") is a well-known constant.
        assert_eq!(
            query_hash("   "),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(query_hash("x").len(), 64);
    }
}
