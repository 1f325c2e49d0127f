//! The vector index against the exact scan (docs/RETRIEVAL.md, "The vector
//! index"): for each query, the nearest chunks by `Store::indexed_nearest`
//! and by the exact scan, recall@10 of the index, and the time of each.
//!
//! Usage: cargo bench --bench vector_recall -- DB QUERIES [N] [WANT] [AFTER BEFORE]
//! DB has a model configured and vectors (an index is built over them if it
//! has none, at any size); QUERIES has one query a line,
//! embedded by the configured model; the first N (default 200) are run.
//! WANT (default 400, what a `--limit 10` search asks) is how many the index
//! returns; recall@10 compares its top 10 with the exact top 10. AFTER and
//! BEFORE (unix seconds) search a window.

use std::time::Instant;

use alfred_mem::embed::ModelSpec;
use alfred_mem::store::Store;
use alfred_mem::store::vector_index::VectorSearch;
use alfred_mem::store::vectors::VectorQuery;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if args.len() < 2 {
        eprintln!(
            "usage: cargo bench --bench vector_recall -- DB QUERIES [N] [WANT] [AFTER BEFORE]"
        );
        std::process::exit(2);
    }
    let n: usize = args.get(2).map_or(200, |a| a.parse().expect("N"));
    let want: usize = args.get(3).map_or(400, |a| a.parse().expect("WANT"));
    let after: Option<i64> = args.get(4).map(|a| a.parse().expect("AFTER"));
    let before: Option<i64> = args.get(5).map(|a| a.parse().expect("BEFORE"));
    let mut store = Store::open(std::path::Path::new(&args[0])).expect("open db");
    let spec = ModelSpec::load(&store)
        .expect("model")
        .expect("no model configured");
    // An index over the vectors there are, whatever their number.
    store.choose_vector_search(VectorSearch::Index);
    if let Some(built) = store.keep_vector_index(spec.model_id(), 0).expect("build") {
        eprintln!("built {built:?}");
    }
    let mut model = spec.open().expect("open model");
    let queries: Vec<String> = std::fs::read_to_string(&args[1])
        .expect("queries")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(n)
        .map(str::to_string)
        .collect();
    let (mut recall, mut t_index, mut t_exact) = (0.0, Vec::new(), Vec::new());
    for text in &queries {
        let v = model
            .embed(&[text.as_str()])
            .expect("embed")
            .pop()
            .expect("vector");
        let q = VectorQuery {
            model_id: spec.model_id(),
            vector: &v,
            after,
            before,
            sources: &[],
            as_of: None,
        };
        let t = Instant::now();
        let got = store
            .indexed_nearest(&q, want)
            .expect("index")
            .expect("no index: run embed");
        t_index.push(t.elapsed().as_secs_f64() * 1000.0);
        let t = Instant::now();
        let mut exact = store.vector_scores(&q).expect("scan").0;
        exact.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        t_exact.push(t.elapsed().as_secs_f64() * 1000.0);
        let top: Vec<i64> = exact.iter().take(10).map(|p| p.0).collect();
        if top.is_empty() {
            recall += 1.0;
            continue;
        }
        let found = got.iter().take(10).filter(|p| top.contains(&p.0)).count();
        recall += found as f64 / top.len() as f64;
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    println!(
        "queries {}  want {want}  recall@10 {:.3}  index median {:.1} ms  exact median {:.1} ms",
        queries.len(),
        recall / queries.len().max(1) as f64,
        median(&mut t_index),
        median(&mut t_exact)
    );
}
