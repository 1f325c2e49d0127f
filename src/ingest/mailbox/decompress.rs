//! Opening a stream for what it is: the first bytes are looked at, a
//! compressed stream is wrapped in its decoder (pure Rust, all four: flate2
//! on miniz_oxide, bzip2 on libbz2-rs-sys, lzma-rust2, ruzstd), and the
//! decoded bytes are looked at again. Concatenated members (`cat a.gz b.gz`,
//! pzstd's frames, `xz` multi-stream) are read through to the end.
//!
//! Memory stays bounded whatever the input claims: gzip and bzip2 need a
//! fixed few hundred kilobytes, and the xz dictionary and zstd window a
//! stream may ask for are capped below, so a hostile header cannot make the
//! importer allocate gigabytes.

use std::io::{self, BufRead, BufReader, Cursor, Read};

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

use super::sniff::{self, Compression, Kind, SNIFF_BYTES};

/// Largest xz dictionary accepted: `xz -9` uses 64 MiB.
const XZ_MEM_LIMIT_KIB: u32 = 128 << 10;

/// Largest zstd window accepted: ruzstd's default, above any level without
/// `--long`; a `--long=27` file asks for 128 MiB and is refused by name.
const ZSTD_MAX_WINDOW: u64 = 100 << 20;

/// A stream opened for reading mail.
pub struct Opened {
    pub kind: Kind,
    pub compression: Option<Compression>,
    /// The whole (decoded) stream, from its first byte.
    pub reader: Box<dyn BufRead + Send>,
}

/// Look at `raw`, decompress it if it is compressed, and say what it holds.
pub fn open(raw: Box<dyn Read + Send>) -> io::Result<Opened> {
    let (head, rest) = peek(raw)?;
    let compression = sniff::compression(&head);
    let stream: Box<dyn Read + Send> = Box::new(Cursor::new(head).chain(rest));
    let decoded = match compression {
        Some(c) => decoder(BufReader::with_capacity(1 << 16, stream), c)?,
        None => stream,
    };
    let (head, rest) = peek(decoded).map_err(|e| match compression {
        Some(c) => io::Error::new(e.kind(), format!("{} data is corrupt: {e}", c.name())),
        None => e,
    })?;
    let kind = match (compression, sniff::kind(&head)) {
        (Some(c), Kind::NotMail(why)) => Kind::NotMail(format!("{} data holding {why}", c.name())),
        (_, kind) => kind,
    };
    Ok(Opened {
        kind,
        compression,
        reader: Box::new(BufReader::with_capacity(
            1 << 20,
            Cursor::new(head).chain(rest),
        )),
    })
}

/// Up to SNIFF_BYTES from the front of `r` (fewer only at its end), and `r`.
fn peek<R: Read>(mut r: R) -> io::Result<(Vec<u8>, R)> {
    let mut head = vec![0; SNIFF_BYTES];
    let mut n = 0;
    while n < head.len() {
        match r.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    head.truncate(n);
    Ok((head, r))
}

fn decoder(
    input: impl BufRead + Send + 'static,
    c: Compression,
) -> io::Result<Box<dyn Read + Send>> {
    Ok(match c {
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(input)),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(input)),
        Compression::Xz => Box::new(lzma_rust2::XzReader::new_mem_limit(
            input,
            true,
            XZ_MEM_LIMIT_KIB,
        )),
        Compression::Zstd => Box::new(Zstd {
            input,
            frame: FrameDecoder::new(),
            in_frame: false,
        }),
    })
}

/// zstd frames one after another until the input ends (ruzstd's
/// StreamingDecoder reads one frame); skippable frames are skipped.
struct Zstd<R> {
    input: R,
    frame: FrameDecoder,
    in_frame: bool,
}

impl<R: BufRead> Read for Zstd<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if !self.in_frame {
                if self.input.fill_buf()?.is_empty() {
                    return Ok(0);
                }
                self.frame.set_max_window_size(ZSTD_MAX_WINDOW);
                match self.frame.reset(&mut self.input) {
                    Ok(()) => self.in_frame = true,
                    Err(FrameDecoderError::ReadFrameHeaderError(
                        ReadFrameHeaderError::SkipFrame { length, .. },
                    )) => {
                        io::copy(&mut (&mut self.input).take(length.into()), &mut io::sink())?;
                    }
                    Err(e) => return Err(io::Error::other(format!("zstd: {e}"))),
                }
                continue;
            }
            if self.frame.can_collect() > 0 {
                return self.frame.read(buf);
            }
            if self.frame.is_finished() {
                self.in_frame = false;
                continue;
            }
            self.frame
                .decode_blocks(&mut self.input, BlockDecodingStrategy::UptoBlocks(1))
                .map_err(|e| io::Error::other(format!("zstd: {e}")))?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const MBOX: &[u8] = b"From a@x Thu Jan 15 10:00:00 2026\nSubject: s\n\nbody\n\n";

    fn read_all(bytes: Vec<u8>) -> (Kind, Option<Compression>, Vec<u8>) {
        let mut o = open(Box::new(Cursor::new(bytes))).unwrap();
        let mut out = Vec::new();
        o.reader.read_to_end(&mut out).unwrap();
        (o.kind, o.compression, out)
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn plain_input_passes_through() {
        assert_eq!(read_all(MBOX.to_vec()), (Kind::Mbox, None, MBOX.to_vec()));
    }

    #[test]
    fn concatenated_gzip_members_are_read_through() {
        let two = [gzip(MBOX), gzip(MBOX)].concat();
        let (kind, c, out) = read_all(two);
        assert_eq!((kind, c), (Kind::Mbox, Some(Compression::Gzip)));
        assert_eq!(out, [MBOX, MBOX].concat());
    }

    #[test]
    fn bzip2_decodes() {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
        e.write_all(MBOX).unwrap();
        let (kind, c, out) = read_all(e.finish().unwrap());
        assert_eq!(
            (kind, c, out),
            (Kind::Mbox, Some(Compression::Bzip2), MBOX.to_vec())
        );
    }

    #[test]
    fn xz_decodes() {
        let mut w =
            lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::with_preset(1)).unwrap();
        w.write_all(MBOX).unwrap();
        let (kind, c, out) = read_all(w.finish().unwrap());
        assert_eq!(
            (kind, c, out),
            (Kind::Mbox, Some(Compression::Xz), MBOX.to_vec())
        );
    }

    /// Two frames (what `zstd -c a >> b` or pzstd make), a skippable frame between.
    #[test]
    fn zstd_frames_are_read_through() {
        use ruzstd::encoding::{CompressionLevel, compress_to_vec};
        let frame = || compress_to_vec(MBOX, CompressionLevel::Fastest);
        let skippable = [&[0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0][..], b"abc"].concat();
        let (kind, c, out) = read_all([frame(), skippable, frame()].concat());
        assert_eq!((kind, c), (Kind::Mbox, Some(Compression::Zstd)));
        assert_eq!(out, [MBOX, MBOX].concat());
    }

    #[test]
    fn a_compressed_file_that_is_not_mail_says_so() {
        let (kind, _, _) = read_all(gzip(b"\x00\x01\x02 not mail at all"));
        assert_eq!(
            kind,
            Kind::NotMail("gzip data holding binary data (a NUL byte at byte 0)".into())
        );
    }

    #[test]
    fn corrupt_compressed_data_is_an_error_naming_the_format() {
        let mut bad = gzip(MBOX);
        let n = bad.len();
        bad[10..n - 8].iter_mut().for_each(|b| *b ^= 0x5a);
        let e = open(Box::new(Cursor::new(bad))).err().expect("corrupt");
        assert!(e.to_string().starts_with("gzip data is corrupt"), "{e}");
    }
}
