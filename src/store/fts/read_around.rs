//! How much the kernel reads around a missing page of the search's memory
//! map.
//!
//! A page of a file mapping that is not in the page cache is read with its
//! neighbours: on Linux, the device's whole read-ahead window, centred on
//! the page (`read_ahead_kb`, 128 KB by default). A search's reads are
//! scattered (doclist leaves, packed blocks, b-tree pages of several
//! tables), so a large window reads mostly what the search never looks at.
//! On a device set to 8 MB, a cold search at 1M messages read a median of
//! 2.9 GB of a 3.6 GB file and took 1.3 s; told the reads are random it
//! read 34 MB and took 0.24 s. With the default 128 KB window the neighbours
//! pay for themselves (0.18 s against 0.26 s), so the advice is given only
//! where the window is at least [`RANDOM_FROM_KB`] (docs/PERFORMANCE.md,
//! "2026-12-07, third session: cold searches read gigabytes"). Best effort throughout:
//! anything unknown leaves the kernel's default.

use rusqlite::Connection;

/// Device read-ahead, in KB, from which the map is advised as read at
/// random: measured cold at 1M messages, 20 queries, random against the
/// default read-around: 128 KB 259 against 181 ms median, 256 KB 260
/// against 213, 512 KB 249 against 302, 2 MB 272 against 589.
pub const RANDOM_FROM_KB: u64 = 512;

/// Advise the main database's memory map of `conn` as read at random when
/// its device reads far around each missing page. Call it after
/// `PRAGMA mmap_size` has enabled the map.
pub fn fit(conn: &Connection) {
    #[cfg(target_os = "linux")]
    linux::fit(conn);
    #[cfg(not(target_os = "linux"))]
    let _ = conn;
}

/// Whether a device with this read-ahead should be read at random.
pub fn random_for(read_ahead_kb: u64) -> bool {
    read_ahead_kb >= RANDOM_FROM_KB
}

#[cfg(target_os = "linux")]
mod linux {
    use std::ffi::{c_int, c_void};
    use std::os::unix::fs::MetadataExt;
    use std::sync::Mutex;

    use rusqlite::{Connection, ffi};

    /// Per device (`st_dev`), whether its map is advised random: read once
    /// a process from sysfs.
    static DECIDED: Mutex<Vec<(u64, bool)>> = Mutex::new(Vec::new());

    pub fn fit(conn: &Connection) {
        let Some(path) = conn.path().filter(|p| !p.is_empty()) else {
            return;
        };
        let Ok(meta) = std::fs::metadata(path) else {
            return;
        };
        if random_device(meta.dev()) {
            advise_map(conn, meta.len());
        }
    }

    /// `madvise(MADV_RANDOM)` over the map of `conn`'s file of `len` bytes.
    pub fn advise_map(conn: &Connection, len: u64) {
        // SAFETY: the handle is `conn`'s, alive for this call.
        unsafe { advise_random(conn.handle(), len) };
    }

    fn random_device(dev: u64) -> bool {
        let mut decided = DECIDED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&(_, random)) = decided.iter().find(|d| d.0 == dev) {
            return random;
        }
        let random = read_ahead_kb(dev).is_some_and(super::random_for);
        decided.push((dev, random));
        random
    }

    /// The read-ahead of the block device holding files of `dev`: its own
    /// queue, or its parent's for a partition. None for a file system
    /// without one block device (tmpfs, overlay, btrfs).
    fn read_ahead_kb(dev: u64) -> Option<u64> {
        let base = format!("/sys/dev/block/{}:{}", libc::major(dev), libc::minor(dev));
        ["queue/read_ahead_kb", "../queue/read_ahead_kb"]
            .iter()
            .find_map(|q| std::fs::read_to_string(format!("{base}/{q}")).ok())
            .and_then(|s| s.trim().parse().ok())
    }

    /// `madvise(MADV_RANDOM)` over the main database's map, found through
    /// the VFS's own xFetch (a pointer to offset 0 of the map, which maps
    /// the file from its start); nothing when the file is not mapped or is
    /// now longer than the map.
    ///
    /// # Safety
    /// `db` is a live connection handle.
    unsafe fn advise_random(db: *mut ffi::sqlite3, len: u64) {
        const PAGE: c_int = 4096;
        // SAFETY: as promised by our caller; the file pointer SQLite
        // returns lives as long as the connection, and every fetched page
        // is handed back at once.
        unsafe {
            let mut file: *mut ffi::sqlite3_file = std::ptr::null_mut();
            let rc = ffi::sqlite3_file_control(
                db,
                c"main".as_ptr(),
                ffi::SQLITE_FCNTL_FILE_POINTER,
                (&raw mut file).cast(),
            );
            if rc != ffi::SQLITE_OK || file.is_null() || (*file).pMethods.is_null() {
                return;
            }
            let methods = &*(*file).pMethods;
            let (3.., Some(fetch), Some(unfetch)) =
                (methods.iVersion, methods.xFetch, methods.xUnfetch)
            else {
                return;
            };
            let mapped = |offset: i64| -> Option<*mut c_void> {
                let mut p: *mut c_void = std::ptr::null_mut();
                if fetch(file, offset, PAGE, &mut p) != ffi::SQLITE_OK || p.is_null() {
                    return None;
                }
                unfetch(file, offset, p);
                Some(p)
            };
            let Ok(len) = i64::try_from(len) else { return };
            // xFetch also wants 256 bytes after the page it returns.
            let last = len - i64::from(PAGE) - 256;
            let Some(start) = mapped(0) else { return };
            if last > 0 && mapped(last).is_none() {
                return;
            }
            libc::madvise(start, len as usize, libc::MADV_RANDOM);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The advice reaches the kernel: the map of the database file is
    /// flagged `rr` (random read) in /proc/self/smaps, and reads through it
    /// still work.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_database_map_is_advised_random() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.db");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE t (x TEXT);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
             INSERT INTO t SELECT printf('%0200d', i) FROM n;
             PRAGMA mmap_size = 1073741824;",
        )
        .unwrap();
        let flags = || {
            let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
            let name = path.to_str().unwrap();
            let at = smaps.find(name)?;
            let flags = smaps[at..].lines().find(|l| l.starts_with("VmFlags:"))?;
            Some(flags.split_whitespace().any(|f| f == "rr"))
        };
        let len = std::fs::metadata(&path).unwrap().len();
        linux::advise_map(&conn, len);
        assert_eq!(flags(), Some(true), "the file is mapped and advised");
        let n: i64 = conn
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 2000);
    }

    #[test]
    fn only_large_read_ahead_is_read_at_random() {
        for (kb, random) in [
            (0, false),
            (128, false),
            (256, false),
            (512, true),
            (8192, true),
        ] {
            assert_eq!(random_for(kb), random, "{kb} KB");
        }
    }
}
