//! A tiny random BERT written by the test itself (no model download), and,
//! when `ALFRED_MEM_TEST_BERT` names a real all-MiniLM-L6-v2 folder, the
//! reference vectors recorded from it by `eval/bert_reference.py`.

use super::tiny::write_tiny_model;
use super::*;

/// The textbook forward pass, one loop per formula, to check the packed one.
fn naive(dir: &Path, ids: &[u32]) -> Vec<f32> {
    let c: Config =
        serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).unwrap()).unwrap();
    let t = tensors::Tensors::open(&dir.join("model.safetensors")).unwrap();
    let g = |n: &str| -> Vec<f32> { t.index_get(n) };
    let (h, heads, n) = (c.hidden_size, c.num_attention_heads, ids.len());
    let dh = h / heads;
    let ln = |x: &mut Vec<f32>, w: &[f32], b: &[f32]| {
        let m = x.iter().sum::<f32>() / h as f32;
        let v = x.iter().map(|a| (a - m) * (a - m)).sum::<f32>() / h as f32;
        for j in 0..h {
            x[j] = (x[j] - m) / (v + c.layer_norm_eps).sqrt() * w[j] + b[j];
        }
    };
    let lin = |x: &[f32], w: &[f32], b: &[f32], out: usize| -> Vec<f32> {
        (0..out)
            .map(|o| b[o] + (0..x.len()).map(|k| x[k] * w[o * x.len() + k]).sum::<f32>())
            .collect()
    };
    let (we, pe, te) = (
        g("embeddings.word_embeddings.weight"),
        g("embeddings.position_embeddings.weight"),
        g("embeddings.token_type_embeddings.weight"),
    );
    let mut x: Vec<Vec<f32>> = ids
        .iter()
        .enumerate()
        .map(|(p, &id)| {
            let mut r: Vec<f32> = (0..h)
                .map(|j| we[id as usize * h + j] + pe[p * h + j] + te[j])
                .collect();
            ln(
                &mut r,
                &g("embeddings.LayerNorm.weight"),
                &g("embeddings.LayerNorm.bias"),
            );
            r
        })
        .collect();
    for l in 0..c.num_hidden_layers {
        let w = |s: &str| g(&format!("encoder.layer.{l}.{s}"));
        let proj = |s: &str, x: &Vec<Vec<f32>>| -> Vec<Vec<f32>> {
            x.iter()
                .map(|r| lin(r, &w(&format!("{s}.weight")), &w(&format!("{s}.bias")), h))
                .collect()
        };
        let (q, k, v) = (
            proj("attention.self.query", &x),
            proj("attention.self.key", &x),
            proj("attention.self.value", &x),
        );
        let mut ctx = vec![vec![0.0f32; h]; n];
        for hd in 0..heads {
            for a in 0..n {
                let s: Vec<f32> = (0..n)
                    .map(|b| {
                        (0..dh)
                            .map(|d| q[a][hd * dh + d] * k[b][hd * dh + d])
                            .sum::<f32>()
                            / (dh as f32).sqrt()
                    })
                    .collect();
                let m = s.iter().copied().fold(f32::MIN, f32::max);
                let e: Vec<f32> = s.iter().map(|z| (z - m).exp()).collect();
                let z: f32 = e.iter().sum();
                for d in 0..dh {
                    ctx[a][hd * dh + d] = (0..n).map(|b| e[b] / z * v[b][hd * dh + d]).sum();
                }
            }
        }
        let o = proj("attention.output.dense", &ctx);
        for a in 0..n {
            let mut r: Vec<f32> = (0..h).map(|j| x[a][j] + o[a][j]).collect();
            ln(
                &mut r,
                &w("attention.output.LayerNorm.weight"),
                &w("attention.output.LayerNorm.bias"),
            );
            let mid: Vec<f32> = lin(
                &r,
                &w("intermediate.dense.weight"),
                &w("intermediate.dense.bias"),
                c.intermediate_size,
            )
            .into_iter()
            .map(|z| 0.5 * z * (1.0 + libm_erf(z / 2f32.sqrt())))
            .collect();
            let f = lin(&mid, &w("output.dense.weight"), &w("output.dense.bias"), h);
            let mut y: Vec<f32> = (0..h).map(|j| r[j] + f[j]).collect();
            ln(
                &mut y,
                &w("output.LayerNorm.weight"),
                &w("output.LayerNorm.bias"),
            );
            x[a] = y;
        }
    }
    let mut mean: Vec<f32> = (0..h)
        .map(|j| x.iter().map(|r| r[j]).sum::<f32>() / n as f32)
        .collect();
    crate::embed::normalise(&mut mean);
    mean
}

/// erf by its Maclaurin series in f64: slow, exact enough, and independent
/// of the approximation the encoder uses.
fn libm_erf(x: f32) -> f32 {
    let x = f64::from(x);
    if x.abs() > 5.0 {
        return x.signum() as f32;
    }
    let (mut term, mut sum) = (x, x);
    for k in 1..200 {
        term *= -x * x / k as f64;
        sum += term / (2 * k + 1) as f64;
    }
    (sum * 2.0 / std::f64::consts::PI.sqrt()) as f32
}

impl tensors::Tensors {
    fn index_get(&self, name: &str) -> Vec<f32> {
        let shape = self.shape(name).unwrap().to_vec();
        self.get(name, &shape).unwrap().to_vec()
    }
}

fn close(a: &[f32], b: &[f32], tol: f32) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

#[test]
fn the_packed_encoder_matches_the_textbook_forward_pass() {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_model(dir.path());
    let mut m = BertEmbedder::open(dir.path()).unwrap().with_threads(2);
    assert_eq!(m.dimension(), 8);
    let texts = [
        "we looked at the Q3 spending plan.",
        "budgets",
        "the",
        "plan plan plan",
    ];
    let got = m.embed(&texts).unwrap();
    for (text, v) in texts.iter().zip(&got) {
        let ids = m.tokenizer.encode(text, m.max_seq);
        let want = naive(dir.path(), &ids);
        assert!(close(v, &want, 1e-5), "{text}: {v:?} vs {want:?}");
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5);
    }
    // One at a time, or on one thread, gives the same vectors.
    let mut single = BertEmbedder::open(dir.path()).unwrap().with_threads(1);
    for (text, v) in texts.iter().zip(&got) {
        assert!(close(&single.embed(&[text]).unwrap()[0], v, 1e-6));
    }
    assert!(m.name().starts_with("bert:"));
    // Split into passes of a few tokens, on two threads: the same vectors.
    let mut split = BertEmbedder::open(dir.path())
        .unwrap()
        .with_pass_tokens(6)
        .with_threads(2);
    for (a, b) in split.embed(&texts).unwrap().iter().zip(&got) {
        assert!(close(a, b, 1e-6));
    }
}

/// Sets `key` of the model's config.json in `dir` to `value`.
fn set_config(dir: &Path, key: &str, value: serde_json::Value) {
    let path = dir.join("config.json");
    let mut cfg: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    cfg[key] = value;
    std::fs::write(path, cfg.to_string()).unwrap();
}

/// The error `BertEmbedder::open` gives for the tiny model once `break_it`
/// has changed it (it must not load).
fn load_error(break_it: impl FnOnce(&Path)) -> String {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_model(dir.path());
    break_it(dir.path());
    match BertEmbedder::open(dir.path()) {
        Ok(_) => panic!("a broken model loaded"),
        Err(e) => format!("{e:#}"),
    }
}

#[test]
fn a_missing_tensor_is_named() {
    let err = load_error(|d| set_config(d, "num_hidden_layers", 3.into()));
    assert!(err.contains("encoder.layer.2."), "{err}");
}

/// A model folder a user could hand us, broken in one way each: loading it
/// is an error that says what is wrong, never a panic (at load or later).
#[test]
fn a_malformed_model_is_refused_with_an_error() {
    for (key, value, want) in [
        ("vocab_size", 0, "vocab_size must be at least 1"),
        (
            "num_attention_heads",
            0,
            "num_attention_heads must be at least 1",
        ),
        ("num_attention_heads", 3, "multiple of num_attention_heads"),
        ("hidden_size", 16, "expected [14, 16]"),
    ] {
        let err = load_error(|d| set_config(d, key, value.into()));
        assert!(err.contains(want), "{key} = {value}: {err}");
    }
    let weights = |d: &Path| d.join("model.safetensors");
    let truncated = |d: &Path| {
        let bytes = std::fs::read(weights(d)).unwrap();
        std::fs::write(weights(d), &bytes[..bytes.len() - 10]).unwrap();
    };
    let not_safetensors =
        |d: &Path| std::fs::write(weights(d), b"\xff\xff\xff\xff\xff\xff\xff\x7fjunk").unwrap();
    for err in [load_error(truncated), load_error(not_safetensors)] {
        assert!(
            err.contains("model.safetensors: not a valid safetensors file"),
            "{err}"
        );
    }
}

/// Vectors recorded from the real all-MiniLM-L6-v2 by eval/bert_reference.py
/// (tokenizers + a numpy forward pass). The model is not in the repository:
/// `ALFRED_MEM_TEST_BERT=FOLDER cargo test --lib reference_vectors -- --ignored`.
#[test]
#[ignore = "needs ALFRED_MEM_TEST_BERT, an all-MiniLM-L6-v2 folder"]
fn matches_reference_vectors_of_all_minilm_l6_v2() {
    let dir = std::env::var_os("ALFRED_MEM_TEST_BERT")
        .expect("set ALFRED_MEM_TEST_BERT to an all-MiniLM-L6-v2 folder");
    let reference: Vec<serde_json::Value> =
        serde_json::from_str(include_str!("reference.json")).unwrap();
    let mut m = BertEmbedder::open(Path::new(&dir))
        .unwrap()
        .without_amx()
        .with_int16(false);
    let mut texts: Vec<&str> = Vec::new();
    let mut wants: Vec<Vec<f32>> = Vec::new();
    for r in &reference {
        let text = r["text"].as_str().unwrap();
        let ids: Vec<u32> = serde_json::from_value(r["ids"].clone()).unwrap();
        assert_eq!(
            m.tokenizer.encode(text, m.max_seq),
            ids,
            "tokens of {text:?}"
        );
        let want: Vec<f32> = serde_json::from_value(r["vector"].clone()).unwrap();
        let got = m.embed(&[text]).unwrap().remove(0);
        let cos: f32 = got.iter().zip(&want).map(|(a, b)| a * b).sum();
        assert!(
            close(&got, &want, 1e-4) && cos > 0.9999,
            "{text:?}: cosine {cos}"
        );
        texts.push(text);
        wants.push(want);
    }
    // All in one pass, long enough for the fast products (i16 on AVX2, or
    // AMX tiles): within their rounding (docs/RETRIEVAL.md measures the
    // cosine on the 10k corpus: at least 0.9999).
    let mut fast = BertEmbedder::open(Path::new(&dir))
        .unwrap()
        .with_int16(true);
    for ((text, got), want) in texts.iter().zip(fast.embed(&texts).unwrap()).zip(&wants) {
        let cos: f32 = got.iter().zip(want).map(|(a, b)| a * b).sum();
        assert!(
            close(&got, want, 2e-3) && cos > 0.9998,
            "{text:?}: cosine {cos} on the fast products"
        );
    }
}

/// Long passes on i16 products (`int16.rs`, on by default where there are
/// no AMX tiles) give the vectors of the f32 pass to their rounding, on a
/// random model whose layers fit the blocks.
#[cfg(target_arch = "x86_64")]
#[test]
fn int16_products_give_the_vectors_of_the_f32_pass() {
    assert!(super::int16::available(), "this x86-64 CPU has no AVX2");
    let dir = tempfile::tempdir().unwrap();
    super::tiny::write_random_model(dir.path(), 64, 128);
    let texts = long_texts();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let open = |int16: bool| {
        BertEmbedder::open(dir.path())
            .unwrap()
            .without_amx()
            .with_int16(int16)
    };
    let fast = open(true).embed(&texts).unwrap();
    let exact = open(false).embed(&texts).unwrap();
    let mut differs = false;
    for ((text, a), b) in texts.iter().zip(&fast).zip(&exact) {
        let cos: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        assert!(cos > 0.9995 && close(a, b, 2e-2), "{text}: cosine {cos}");
        differs |= a != b;
    }
    assert!(differs, "the pass ran on i16, not f32");
}

/// Six texts of 20 to 25 words: 140-odd tokens in one pass, past the
/// 64 tokens the fast products need.
fn long_texts() -> Vec<String> {
    let words = [
        "we", "looked", "at", "the", "q3", "spending", "plan", "budget",
    ];
    (0..6)
        .map(|n| {
            (0..20 + n)
                .map(|i| words[(i * 7 + n) % words.len()])
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// With a model whose layers fit AMX tiles (multiples of 32), long passes
/// run on bf16 tiles: the vectors must stay those of the f32 pass, to the
/// precision bf16 inputs allow.
#[test]
#[ignore = "needs a CPU with AMX-BF16 (.ci/run runs it where there is one)"]
fn amx_tiles_give_the_vectors_of_the_f32_pass() {
    assert!(amx::available(), "this CPU or OS has no AMX-BF16");
    let dir = tempfile::tempdir().unwrap();
    super::tiny::write_random_model(dir.path(), 64, 128);
    let texts = long_texts();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let tiles = BertEmbedder::open(dir.path())
        .unwrap()
        .embed(&texts)
        .unwrap();
    let exact = BertEmbedder::open(dir.path())
        .unwrap()
        .without_amx()
        .embed(&texts)
        .unwrap();
    for ((text, a), b) in texts.iter().zip(&tiles).zip(&exact) {
        let cos: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        assert!(cos > 0.9995 && close(a, b, 2e-2), "{text}: cosine {cos}");
    }
}
