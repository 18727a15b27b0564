//! `include/weft_runtime.h` must declare exactly the functions of `abi::ABI`,
//! with the same prototypes, and the listing must agree with itself.

use weft_runtime::abi::{CType, ABI};

fn header_prototypes() -> Vec<String> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/include/weft_runtime.h"
    ))
    .expect("header present");
    // strip comments and preprocessor lines
    let mut s = String::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("/*") {
        s.push_str(&rest[..i]);
        let j = rest[i..].find("*/").expect("closed comment");
        rest = &rest[i + j + 2..];
    }
    s.push_str(rest);
    let s: String = s
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .replace("extern \"C\" {", "")
        .replace(['{', '}'], ";");
    s.split(';')
        .map(|d| d.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|d| d.contains("weft_") && d.contains('(') && !d.starts_with("typedef"))
        .collect()
}

#[test]
fn header_matches_abi_listing() {
    let mut from_header = header_prototypes();
    let mut from_abi: Vec<String> = ABI.iter().map(|f| f.c_proto.to_string()).collect();
    from_header.sort();
    from_abi.sort();
    assert_eq!(from_header, from_abi);
}

#[test]
fn listing_is_self_consistent() {
    for f in ABI {
        let (head, args) = f.c_proto.split_once('(').unwrap();
        assert!(head.ends_with(f.name));
        let ret = head.trim_end_matches(f.name).trim();
        let want_ret = match f.ret {
            CType::I32 => "int32_t",
            CType::Ptr => "const char *",
            _ => panic!("unexpected return type"),
        };
        assert_eq!(ret, want_ret, "{}", f.name);
        let args = args.trim_end_matches(')');
        let parts: Vec<&str> = if args == "void" {
            vec![]
        } else {
            args.split(", ").collect()
        };
        assert_eq!(parts.len(), f.params.len(), "{}", f.name);
        for (p, (name, ty)) in parts.iter().zip(f.params) {
            assert!(p.ends_with(name), "{}: {p} vs {name}", f.name);
            let cty = p.trim_end_matches(name).trim();
            let ok = match ty {
                CType::I32 => cty == "int32_t",
                CType::U32 => cty == "uint32_t",
                CType::I64 => cty == "int64_t",
                CType::U64 => cty == "uint64_t",
                CType::Ptr => cty.ends_with('*') || cty.ends_with("_fn"),
                CType::Void => false,
            };
            assert!(ok, "{}: parameter {p} is not {ty:?}", f.name);
        }
    }
    let mut names: Vec<&str> = ABI.iter().map(|f| f.name).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), ABI.len());
}

#[test]
fn null_arguments_are_errors_not_crashes() {
    use std::ffi::CStr;
    use weft_runtime::abi::*;
    assert_eq!(
        weft_parallel_for(0, 10, None, std::ptr::null_mut()),
        Status::Null as i32
    );
    let msg = unsafe { CStr::from_ptr(weft_last_error()) }
        .to_str()
        .unwrap()
        .to_string();
    assert!(msg.contains("body"), "{msg}");
    assert_eq!(
        weft_inspect_access(std::ptr::null_mut(), 0, std::ptr::null(), 4, 0),
        Status::Null as i32
    );
    assert_eq!(weft_num_cores(std::ptr::null_mut()), Status::Null as i32);
    assert_eq!(
        weft_schedule_slabs(
            1,
            4,
            std::ptr::null(),
            std::ptr::null(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut()
        ),
        Status::Null as i32
    );
    unsafe extern "C" fn nop(_: *mut std::ffi::c_void, _: i64, _: i64) {}
    assert_eq!(
        weft_run_affine(1, 0, 10, 0, 1, None, Some(nop), std::ptr::null_mut()),
        Status::Invalid as i32
    );
    assert_eq!(
        weft_run_affine(1, 0, 10, 2, 9, None, Some(nop), std::ptr::null_mut()),
        Status::Invalid as i32
    );
    assert_eq!(
        weft_run_irregular(1, 10, 0, 0, None, Some(nop), std::ptr::null_mut()),
        Status::Invalid as i32
    );
}
