//! A tiny BERT with random weights (8 dimensions, 2 layers, 2 heads, a
//! 14-word vocabulary), written by tests so they need no real model: the
//! unit tests of the encoder and the CLI tests of `model use FOLDER` share it.

use std::path::Path;

use super::Config;
use super::encoder::tensor_shapes;
use super::tensors;
use crate::lcg::Lcg;

const VOCAB: &[&str] = &[
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "budget", "plan", "q3", "spending", "we", "looked",
    "at", "##s", ".",
];

/// Writes a 2-layer, 8-dimension, 2-head BERT with random weights into `dir`.
pub fn write_tiny_model(dir: &Path) {
    write_random_model(dir, 8, 16);
}

/// Writes a 2-layer, 2-head BERT with random weights, `h` dimensions and
/// `i` in the feed-forward layer, into `dir`.
pub fn write_random_model(dir: &Path, h: usize, i: usize) {
    let layers = 2usize;
    let config = serde_json::json!({
        "hidden_size": h, "num_attention_heads": 2, "num_hidden_layers": layers,
        "intermediate_size": i, "max_position_embeddings": 32, "vocab_size": VOCAB.len(),
        "type_vocab_size": 2, "layer_norm_eps": 1e-12, "hidden_act": "gelu"
    });
    std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
    let vocab: serde_json::Map<String, serde_json::Value> = VOCAB
        .iter()
        .enumerate()
        .map(|(n, t)| (t.to_string(), serde_json::json!(n)))
        .collect();
    let tok = serde_json::json!({"normalizer": {"lowercase": true}, "model": {"vocab": vocab}});
    std::fs::write(dir.join("tokenizer.json"), tok.to_string()).unwrap();
    let config: Config = serde_json::from_value(config).unwrap();
    let mut r = Lcg(7);
    let t: Vec<(String, Vec<usize>, Vec<f32>)> = tensor_shapes(&config)
        .into_iter()
        .map(|(name, shape)| {
            let mut data = r.vec(shape.iter().product());
            if name.ends_with("LayerNorm.weight") {
                data.iter_mut().for_each(|v| *v += 1.0);
            }
            (name, shape, data)
        })
        .collect();
    tensors::write(&dir.join("model.safetensors"), &t).unwrap();
}
