//! Helpers: compile a fixture and summarise it.

use std::path::PathBuf;

use inkwell::context::Context;
use weft_frontend::summary::{FunctionSummary, LoopSummary};
use weft_frontend::{load_module, parse_ir, ClangOptions, ModuleAnalysis, ModuleSummary};

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Compiles `tests/fixtures/<name>` with the default flags and summarises it.
pub fn summarize_fixture(name: &str) -> ModuleSummary {
    let ctx = Context::create();
    let m = load_module(&ctx, &fixture(name), &ClangOptions::default())
        .unwrap_or_else(|e| panic!("loading {name}: {e}"));
    let a = ModuleAnalysis::new(&m);
    ModuleSummary::new(&a)
}

/// Summarises IR text.
pub fn summarize_ir(text: &str) -> ModuleSummary {
    let ctx = Context::create();
    let m = parse_ir(&ctx, text, "test.ll").unwrap_or_else(|e| panic!("{e}"));
    let a = ModuleAnalysis::new(&m);
    ModuleSummary::new(&a)
}

pub fn func<'a>(s: &'a ModuleSummary, name: &str) -> &'a FunctionSummary {
    s.functions
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no function {name}"))
}

/// `(kind, class, base, index)` of every access of a loop, in order.
pub fn accesses(l: &LoopSummary) -> Vec<(String, String, String, String)> {
    l.accesses
        .iter()
        .map(|a| {
            (
                format!("{:?}", a.kind).to_lowercase(),
                a.class.clone(),
                a.base.clone(),
                a.index.clone().unwrap_or_default(),
            )
        })
        .collect()
}

pub fn acc(kind: &str, class: &str, base: &str, index: &str) -> (String, String, String, String) {
    (kind.into(), class.into(), base.into(), index.into())
}
