//! A `.safetensors` file, memory-mapped: an 8-byte little-endian header
//! length, a JSON header naming each tensor's dtype, shape and byte range,
//! then the raw data. Only f32 tensors are read. Mapping instead of reading
//! means a search that embeds one query touches only the pages it needs
//! (a few rows of the 47 MB word-embedding table), not the whole file.

use std::collections::HashMap;
use std::fs::File;
use std::ops::Range;
use std::path::Path;

use anyhow::{Context, Result, bail};
use memmap2::{Mmap, MmapOptions};
use serde::Deserialize;

#[derive(Deserialize)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: [usize; 2],
}

/// The tensors of one file. `Owned` exists for a data section that is not
/// 4-byte aligned (the format does not promise it), which is copied once.
pub struct Tensors {
    backing: Backing,
    index: HashMap<String, (String, Vec<usize>, Range<usize>)>,
    /// sha256 of the header: with config.json, names the model.
    pub header_hash: [u8; 32],
}

enum Backing {
    Mapped { map: Mmap, start: usize },
    Owned(Vec<f32>),
}

impl Tensors {
    pub fn open(path: &Path) -> Result<Tensors> {
        let file =
            File::open(path).with_context(|| format!("could not open {}", path.display()))?;
        // SAFETY: the file is opened read-only; like every reader of model
        // files we assume nobody truncates it while we run.
        // Populate: map every page in one call instead of taking a page
        // fault per 4 KB on first touch (a search reads all layer weights).
        let map = unsafe { MmapOptions::new().populate().map(&file) }
            .with_context(|| format!("could not map {}", path.display()))?;
        let n = map
            .get(..8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()) as usize)
            .context("safetensors file too short")?;
        let Some(header) = map.get(8..8usize.saturating_add(n)) else {
            bail!("safetensors header runs past the end of the file");
        };
        let header_hash = crate::store::vectors::text_hash(&String::from_utf8_lossy(header));
        let raw: HashMap<String, serde_json::Value> =
            serde_json::from_slice(header).context("unreadable safetensors header")?;
        let start = 8 + n;
        let data_len = map.len() - start;
        let mut index = HashMap::new();
        for (name, v) in raw {
            if name == "__metadata__" {
                continue;
            }
            let e: Entry = serde_json::from_value(v)
                .with_context(|| format!("bad safetensors entry {name}"))?;
            let [a, b] = e.data_offsets;
            if a > b || b > data_len {
                bail!("tensor {name} lies outside the file");
            }
            index.insert(name, (e.dtype, e.shape, a..b));
        }
        let backing = if start.is_multiple_of(4) {
            Backing::Mapped { map, start }
        } else {
            let data = map[start..]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            Backing::Owned(data)
        };
        Ok(Tensors {
            backing,
            index,
            header_hash,
        })
    }

    fn data(&self) -> &[f32] {
        match &self.backing {
            Backing::Mapped { map, start } => {
                let bytes = &map[*start..];
                // SAFETY: mmap returns page-aligned memory and `start` is a
                // multiple of 4, so the pointer is aligned for f32; every bit
                // pattern is a valid f32; the length is rounded down.
                unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<f32>(), bytes.len() / 4) }
            }
            Backing::Owned(v) => v,
        }
    }

    /// The f32 tensor `name`, checked against `shape`.
    pub fn get(&self, name: &str, shape: &[usize]) -> Result<&[f32]> {
        let (dtype, found, bytes) = self
            .index
            .get(name)
            .with_context(|| format!("the model has no tensor {name}"))?;
        if dtype != "F32" {
            bail!("tensor {name} is {dtype}; only F32 models are supported");
        }
        if found != shape || bytes.len() != 4 * shape.iter().product::<usize>() {
            bail!("tensor {name} has shape {found:?}, expected {shape:?}");
        }
        if !bytes.start.is_multiple_of(4) {
            bail!("tensor {name} is not 4-byte aligned");
        }
        Ok(&self.data()[bytes.start / 4..bytes.end / 4])
    }

    #[cfg(test)]
    pub fn shape_of(&self, name: &str) -> Vec<usize> {
        self.index[name].1.clone()
    }

    /// Whether a tensor exists (models differ in their name prefix).
    pub fn has(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }
}

/// Write f32 tensors as a safetensors file (used by tests to build a tiny model).
pub fn write(path: &Path, tensors: &[(String, Vec<usize>, Vec<f32>)]) -> Result<()> {
    let mut header = serde_json::Map::new();
    let mut at = 0;
    for (name, shape, data) in tensors {
        let end = at + 4 * data.len();
        header.insert(
            name.clone(),
            serde_json::json!({"dtype": "F32", "shape": shape, "data_offsets": [at, end]}),
        );
        at = end;
    }
    let mut h = serde_json::to_vec(&header)?;
    while (8 + h.len()) % 8 != 0 {
        h.push(b' ');
    }
    let mut out = (h.len() as u64).to_le_bytes().to_vec();
    out.extend(h);
    for (_, _, data) in tensors {
        out.extend(data.iter().flat_map(|x| x.to_le_bytes()));
    }
    std::fs::write(path, out)?;
    Ok(())
}
