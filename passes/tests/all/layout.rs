//! The module graph of `passes/src` has no import cycle (issue 37): the
//! registry sits above the pass manager, and a module folder's children
//! import one another, never their `mod.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (`inspector::slice`, `""` for the crate root) → source text
/// without comments and without a trailing `#[cfg(test)] mod tests`.
fn modules(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        let join = |s: &str| match prefix {
            "" => s.to_string(),
            _ => format!("{prefix}::{s}"),
        };
        if p.is_dir() {
            modules(&p, &join(&stem), out);
            continue;
        }
        if p.extension().and_then(|x| x.to_str()) != Some("rs") {
            continue;
        }
        let name = match stem.as_str() {
            "mod" | "lib" => prefix.to_string(),
            s => join(s),
        };
        let text = std::fs::read_to_string(&p).unwrap();
        let text = text.split("#[cfg(test)]\nmod tests").next().unwrap();
        let code: Vec<&str> = text
            .lines()
            .map(|l| l.split("//").next().unwrap())
            .collect();
        out.insert(name, code.join("\n"));
    }
}

/// Words of `s` joined by `::` starting at byte `at` (`a::b::{c, d}` gives `a::b`).
fn path_at(s: &str, at: usize) -> Vec<&str> {
    let mut segs = Vec::new();
    let mut rest = &s[at..];
    loop {
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        segs.push(&rest[..end]);
        match rest[end..].strip_prefix("::") {
            Some(r) => rest = r,
            None => break,
        }
    }
    segs
}

/// The longest module that is a prefix of `segs`.
fn resolve(names: &BTreeMap<String, String>, segs: &[&str]) -> Option<String> {
    (1..=segs.len())
        .rev()
        .map(|k| segs[..k].join("::"))
        .find(|m| names.contains_key(m))
}

fn edges(names: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut g = BTreeMap::new();
    for (m, code) in names {
        let mut to = BTreeSet::new();
        let parent = m.rsplit_once("::").map(|p| p.0).unwrap_or("");
        for (i, _) in code.match_indices("crate::") {
            let segs = path_at(code, i + "crate::".len());
            // `crate::{a, b}` groups: every item.
            let group = &code[i + "crate::".len()..];
            if segs.is_empty() && group.starts_with('{') {
                let inner = &group[1..group.find('}').unwrap_or(group.len())];
                for item in inner.split(',') {
                    let segs: Vec<&str> = item.trim().split("::").collect();
                    to.extend(resolve(names, &segs));
                }
            }
            to.extend(resolve(names, &segs));
        }
        for (i, _) in code.match_indices("super::") {
            let mut segs = vec![parent];
            segs.extend(path_at(code, i + "super::".len()));
            let segs: Vec<&str> = segs.into_iter().filter(|s| !s.is_empty()).collect();
            to.extend(resolve(names, &segs));
        }
        for (i, _) in code.match_indices("use ") {
            let segs = path_at(code, i + 4);
            if let Some(first) = segs.first() {
                let child = match m.as_str() {
                    "" => first.to_string(),
                    _ => format!("{m}::{first}"),
                };
                if names.contains_key(&child) {
                    to.insert(child);
                }
            }
        }
        to.remove(m);
        to.remove("");
        g.insert(m.clone(), to);
    }
    g
}

/// A cycle of `g`, if any (depth-first search with three colours).
fn find_cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        g: &BTreeMap<String, BTreeSet<String>>,
        v: &str,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(v.to_string(), 1);
        stack.push(v.to_string());
        for w in &g[v] {
            match state.get(w).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|s| s == w).unwrap();
                    return Some(stack[at..].to_vec());
                }
                0 => {
                    if let Some(c) = visit(g, w, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(v.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for v in g.keys() {
        if state.get(v).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(g, v, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn passes_src_has_no_import_cycle() {
    let mut names = BTreeMap::new();
    modules(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        "",
        &mut names,
    );
    let g = edges(&names);
    // The graph is the real one: the registry imports the passes and the
    // manager, the passes import the manager, a folder's children each other.
    let has = |a: &str, b: &str| g.get(a).is_some_and(|s| s.contains(b));
    assert!(
        has("registry", "manager") && has("registry", "inspector"),
        "{g:?}"
    );
    assert!(
        has("parallel", "manager") && has("inspector::emit", "inspector::key"),
        "{g:?}"
    );
    assert!(!has("manager", "registry"), "{g:?}");
    assert_eq!(find_cycle(&g), None);
}

#[test]
fn the_cycle_check_finds_a_cycle() {
    let mut g = BTreeMap::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")] {
        g.entry(a.to_string())
            .or_insert_with(BTreeSet::new)
            .insert(b.to_string());
    }
    g.insert("d".into(), BTreeSet::from(["a".to_string()]));
    let c = find_cycle(&g).expect("a cycle");
    assert_eq!(c.len(), 3, "{c:?}");
}
