//! The weights of a model: a `.safetensors` file, parsed and validated by
//! the `safetensors` crate (header, dtypes, and that every tensor's byte
//! range matches its shape and lies inside the file) and memory-mapped.
//!
//! Mapped rather than read: the weights are used in place from the page
//! cache, with no copy onto the heap, and two processes share them. The map
//! is populated up front (every page mapped in one call) because one forward
//! pass reads every layer's weights; only the word-embedding table is read
//! a few rows at a time. A file whose data section is not 4-byte aligned
//! (the format does not promise alignment) is copied once into f32s.

use std::fs::File;
use std::path::Path;

use anyhow::{Context, Result, bail};
use memmap2::{Mmap, MmapOptions};
use safetensors::tensor::{Dtype, Metadata, SafeTensors, TensorView};

/// The tensors of one file.
pub struct Tensors {
    backing: Backing,
    metadata: Metadata,
    /// sha256 of the header: with config.json, names the model.
    pub header_hash: [u8; 32],
}

enum Backing {
    /// The file, mapped; tensor data starts at byte `start` (a multiple of 4).
    Mapped { map: Mmap, start: usize },
    /// The data section, copied into f32s.
    Owned(Vec<f32>),
}

impl Tensors {
    pub fn open(path: &Path) -> Result<Tensors> {
        let file =
            File::open(path).with_context(|| format!("could not open {}", path.display()))?;
        // SAFETY: the file is opened read-only; like every reader of model
        // files we assume nobody truncates it while we run.
        let map = unsafe { MmapOptions::new().populate().map(&file) }
            .with_context(|| format!("could not map {}", path.display()))?;
        let (header_len, metadata) = SafeTensors::read_metadata(&map).map_err(|e| {
            anyhow::anyhow!("{}: not a valid safetensors file: {e}", path.display())
        })?;
        // `read_metadata` checked that these bytes exist and are UTF-8.
        let start = 8 + header_len;
        let header_hash =
            crate::store::vectors::text_hash(&String::from_utf8_lossy(&map[8..start]));
        let backing = if start.is_multiple_of(4) {
            Backing::Mapped { map, start }
        } else {
            Backing::Owned(
                map[start..]
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            )
        };
        Ok(Tensors {
            backing,
            metadata,
            header_hash,
        })
    }

    /// The data section as f32s (its length rounded down to whole floats).
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

    /// The f32 tensor `name`, which must have exactly `shape`.
    pub fn get(&self, name: &str, shape: &[usize]) -> Result<&[f32]> {
        let info = self
            .metadata
            .info(name)
            .with_context(|| format!("the model has no tensor {name}"))?;
        if info.dtype != Dtype::F32 {
            bail!(
                "tensor {name} is {}; only F32 models are supported",
                info.dtype
            );
        }
        if info.shape != shape {
            bail!(
                "tensor {name} has shape {:?}, expected {shape:?}",
                info.shape
            );
        }
        // The crate checked that the byte range is the shape's size and lies
        // inside the file; F32 data starts on a float only if its offset does.
        let (a, b) = info.data_offsets;
        if !a.is_multiple_of(4) {
            bail!("tensor {name} is not 4-byte aligned");
        }
        Ok(&self.data()[a / 4..b / 4])
    }

    /// The shape of tensor `name`, if the file has it.
    pub fn shape(&self, name: &str) -> Option<&[usize]> {
        self.metadata.info(name).map(|i| i.shape.as_slice())
    }
}

/// Write f32 tensors as a safetensors file (tests build their tiny models
/// with it).
pub fn write(path: &Path, tensors: &[(String, Vec<usize>, Vec<f32>)]) -> Result<()> {
    let bytes: Vec<Vec<u8>> = tensors
        .iter()
        .map(|(_, _, data)| data.iter().flat_map(|x| x.to_le_bytes()).collect())
        .collect();
    let views = tensors
        .iter()
        .zip(&bytes)
        .map(|((name, shape, _), b)| {
            Ok((
                name.as_str(),
                TensorView::new(Dtype::F32, shape.clone(), b)?,
            ))
        })
        .collect::<Result<Vec<_>, safetensors::SafeTensorError>>()?;
    safetensors::serialize_to_file(views, None, path)?;
    Ok(())
}
