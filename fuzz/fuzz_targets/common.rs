//! Panic handling shared by the targets. The code under test catches panics
//! from third-party parsers at its boundary (`catch_unwind`), but
//! libfuzzer-sys's panic hook aborts on every panic, caught or not. So each
//! target swaps that hook for one that only remembers the message, and aborts
//! itself (a crash libFuzzer records) when a panic escapes the code under test.

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};

thread_local! {
    static LAST_PANIC: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Call once, from the target's `init`.
pub fn remember_panics_quietly() {
    panic::set_hook(Box::new(|info| {
        LAST_PANIC.with(|p| *p.borrow_mut() = info.to_string());
    }));
}

/// Runs `f`; a panic that escapes it is a crash.
pub fn no_escaping_panic(f: impl FnOnce()) {
    if panic::catch_unwind(AssertUnwindSafe(f)).is_err() {
        LAST_PANIC.with(|p| eprintln!("panic escaped the code under test: {}", p.borrow()));
        std::process::abort();
    }
}
