//! Bad input gives typed errors, never panics.

use inkwell::context::Context;
use weft_frontend::{load_module, parse_ir, ClangOptions, Error};

#[test]
fn malformed_ir_reports_file_line_and_message() {
    let ctx = Context::create();
    let text = "define void @f() {\nentry:\n  %x = add i32 1, %nope\n  ret void\n}\n";
    match parse_ir(&ctx, text, "bad.ll") {
        Err(Error::Parse {
            file,
            line,
            message,
        }) => {
            assert_eq!(file, "bad.ll");
            assert_eq!(line, Some(3));
            assert!(message.contains("nope"), "{message}");
        }
        Err(e) => panic!("wrong error {e}"),
        Ok(_) => panic!("accepted malformed IR"),
    };
}

#[test]
fn unverifiable_ir_is_rejected() {
    let ctx = Context::create();
    // Parses, but the block has no terminator... the parser catches that;
    // use a use-before-def across blocks instead, which only the verifier sees.
    let text = "define i32 @f(i1 %c) {\nentry:\n  br i1 %c, label %a, label %b\na:\n  %x = add i32 1, 2\n  br label %b\nb:\n  ret i32 %x\n}\n";
    match parse_ir(&ctx, text, "dom.ll") {
        Err(Error::Verify { .. }) | Err(Error::Parse { .. }) => {}
        Err(e) => panic!("wrong error {e}"),
        Ok(_) => panic!("accepted IR where a use is not dominated by its def"),
    };
}

#[test]
fn missing_clang_says_how_to_install() {
    let ctx = Context::create();
    let opts = ClangOptions {
        clang: "clang-19-does-not-exist".into(),
        ..Default::default()
    };
    let e = load_module(&ctx, &crate::common::fixture("matmul.c"), &opts)
        .err()
        .unwrap();
    assert!(matches!(e, Error::ClangMissing { .. }));
    assert!(e.to_string().contains("apt-get install clang-19"));
}

#[test]
fn c_compile_errors_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.c");
    std::fs::write(&p, "void f( { }\n").unwrap();
    let ctx = Context::create();
    let e = load_module(&ctx, &p, &ClangOptions::default())
        .err()
        .unwrap();
    assert!(matches!(e, Error::ClangFailed { .. }), "{e}");
}

#[test]
fn unknown_extension_and_missing_file() {
    let ctx = Context::create();
    let e = load_module(&ctx, "x.txt".as_ref(), &ClangOptions::default())
        .err()
        .unwrap();
    assert!(matches!(e, Error::UnsupportedInput(_)));
    let e = load_module(&ctx, "/nonexistent/x.ll".as_ref(), &ClangOptions::default())
        .err()
        .unwrap();
    assert!(matches!(e, Error::Io { .. }));
}

#[test]
fn garbage_bitcode_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("junk.bc");
    std::fs::write(&p, b"BC\xc0\xde garbage that is not bitcode").unwrap();
    let ctx = Context::create();
    let e = load_module(&ctx, &p, &ClangOptions::default())
        .err()
        .unwrap();
    assert!(matches!(e, Error::Parse { .. }), "{e}");
}

#[test]
fn bitcode_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let bc = dir.path().join("m.bc");
    let ctx = Context::create();
    let m = load_module(
        &ctx,
        &crate::common::fixture("matmul.c"),
        &ClangOptions::default(),
    )
    .unwrap();
    assert!(m.write_bitcode_to_path(&bc));
    let ctx2 = Context::create();
    let m2 = load_module(&ctx2, &bc, &ClangOptions::default()).unwrap();
    let a = weft_frontend::ModuleAnalysis::new(&m2);
    assert_eq!(a.function("matmul").unwrap().forest.len(), 3);
}
