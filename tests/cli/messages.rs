//! Saying what happened: what a person is told when a command cannot do
//! what was asked, said once and naming the way out.

use crate::util::TestEnv;

fn run(mut cmd: assert_cmd::Command) -> (Option<i32>, String, String) {
    let out = cmd.output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// Regression: `forget` alone showed a usage with ids only.
#[test]
fn forget_without_arguments_names_match() {
    let env = TestEnv::new();
    let (code, _, stderr) = run(env.cmd(["forget"]));
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("alfred-mem forget [OPTIONS] <ID>...")
            && stderr.contains("alfred-mem forget [OPTIONS] --match <TEXT>"),
        "{stderr}"
    );
    assert!(!env.db().exists());
}
