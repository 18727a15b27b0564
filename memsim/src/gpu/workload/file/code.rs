//! Code sections: `[[function]]` (shape, registers, shared arrays, body) and
//! `[[app]]` (host streams). Function names, shapes and parameters are collected
//! first, so a launch may name any function of the file.

use std::collections::HashMap;

use serde::Deserialize;
use toml::Spanned;

use super::data::four;
use super::{IntOrExpr, Loader};
use crate::gpu::workload::ir::{App, FuncId, Function, Stream};
use crate::gpu::workload::parser::{Callee, Parser, SharedArray};
use crate::gpu::workload::{Error, Result, MAX_BLOCK};

/// Most parameters of a function (CUDA allows 4 KB of parameters: 512 of 8 bytes).
const MAX_PARAMS: usize = 512;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SharedSpec {
    name: String,
    #[serde(default = "four")]
    elem_bytes: u32,
    len: Spanned<IntOrExpr>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FunctionSpec {
    name: Spanned<String>,
    #[serde(default)]
    block: Option<Spanned<Vec<u32>>>,
    #[serde(default)]
    regs_per_thread: Option<Spanned<u32>>,
    smem_bytes: Option<u32>,
    #[serde(default)]
    params: Vec<String>,
    #[serde(default)]
    shared: Vec<SharedSpec>,
    body: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StreamSpec {
    id: u32,
    cmds: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AppSpec {
    name: Spanned<String>,
    #[serde(default)]
    stream: Vec<StreamSpec>,
    cmds: Option<Spanned<String>>,
}

/// Parse every function (names and shapes first).
pub(super) fn functions(
    l: &Loader<'_>,
    specs: &[FunctionSpec],
) -> Result<(Vec<Function>, HashMap<String, Callee>)> {
    let limits = &l.opts.limits;
    let origin = l.origin;
    if specs.len() > limits.max_functions {
        return Err(Error::Invalid {
            origin: origin.to_string(),
            msg: format!("more than {} functions", limits.max_functions),
        });
    }
    // First pass: names, shapes and parameters, so launches may name any function.
    let mut callees = HashMap::new();
    let mut shapes = Vec::new();
    for (i, f) in specs.iter().enumerate() {
        l.check_name(&f.name, "function")?;
        let name = f.name.get_ref();
        if l.tables.id(name).is_some() || l.defs.contains_key(name) {
            return Err(l.at(
                f.name.span(),
                format!("`{name}` is already a table or constant"),
            ));
        }
        let block = match &f.block {
            None => [256, 1, 1],
            Some(b) => {
                let v = b.get_ref();
                let bad = v.is_empty()
                    || v.len() > 3
                    || v.iter()
                        .zip(MAX_BLOCK)
                        .any(|(&d, m)| d == 0 || d as i64 > m)
                    || v.iter().map(|&d| d as i64).product::<i64>() > MAX_BLOCK[0];
                if bad {
                    return Err(l.at(b.span(), "block must have 1 to 3 dimensions, each at least 1, x and y at most 1024, z at most 64, at most 1024 threads"));
                }
                let mut out = [1; 3];
                out[..v.len()].copy_from_slice(v);
                out
            }
        };
        let regs = match &f.regs_per_thread {
            None => 32,
            Some(r) if (1..=255).contains(r.get_ref()) => *r.get_ref(),
            Some(r) => return Err(l.at(r.span(), "regs_per_thread must be 1 to 255")),
        };
        if f.params.len() > MAX_PARAMS {
            return Err(l.at(f.name.span(), format!("more than {MAX_PARAMS} parameters")));
        }
        let mut seen = std::collections::HashSet::new();
        for p in &f.params {
            let sp = Spanned::new(f.name.span(), p.clone());
            l.check_name(&sp, "parameter")?;
            if !seen.insert(p) {
                return Err(l.at(f.name.span(), format!("parameter `{p}` is declared twice")));
            }
        }
        let callee = Callee {
            id: FuncId(i as u32),
            params: f.params.clone(),
            block,
        };
        if callees.insert(name.clone(), callee).is_some() {
            return Err(l.at(f.name.span(), format!("function `{name}` is defined twice")));
        }
        shapes.push((block, regs));
    }
    let mut functions = Vec::with_capacity(specs.len());
    for (f, (block, regs)) in specs.iter().zip(shapes) {
        let mut shared = HashMap::new();
        let mut off = 0i64;
        for s in &f.shared {
            let sp = Spanned::new(f.name.span(), s.name.clone());
            l.check_name(&sp, "shared array")?;
            let n = l.count(&s.len, "shared array length")? as i64;
            if !matches!(s.elem_bytes, 1 | 2 | 4 | 8 | 16) {
                return Err(l.at(s.len.span(), "elem_bytes must be 1, 2, 4, 8 or 16"));
            }
            let eb = s.elem_bytes as i64;
            off = (off + eb - 1) / eb * eb;
            shared.insert(
                s.name.clone(),
                SharedArray {
                    offset: off,
                    elem_bytes: eb,
                },
            );
            off += n * eb;
            if off > 1 << 20 {
                return Err(l.at(s.len.span(), "shared arrays exceed 1 MiB"));
            }
        }
        let smem = match f.smem_bytes {
            Some(b) if (b as i64) < off => {
                return Err(l.at(
                    f.name.span(),
                    format!("smem_bytes {b} is below the {off} bytes of the shared arrays"),
                ))
            }
            Some(b) if b > 1 << 20 => return Err(l.at(f.name.span(), "smem_bytes above 1 MiB")),
            Some(b) => b,
            None => off as u32,
        };
        let toks = l.body_tokens(&f.body)?;
        let scope = l.scope(&callees);
        let mut p = Parser::device(&scope, toks, f.params.clone(), shared);
        let body = p.device_block()?;
        p.finish()?;
        functions.push(Function {
            name: f.name.get_ref().clone(),
            block,
            regs_per_thread: regs,
            smem_bytes: smem,
            params: f.params.clone(),
            var_names: p.vars,
            body,
        });
    }
    Ok((functions, callees))
}

/// Parse every app.
pub(super) fn apps(
    l: &Loader<'_>,
    specs: &[AppSpec],
    callees: &HashMap<String, Callee>,
) -> Result<Vec<App>> {
    let mut apps = Vec::with_capacity(specs.len());
    for a in specs {
        if a.name.get_ref().trim().is_empty() {
            return Err(l.at(a.name.span(), "an app needs a name"));
        }
        if apps.iter().any(|x: &App| x.name == *a.name.get_ref()) {
            return Err(l.at(
                a.name.span(),
                format!("app `{}` is defined twice", a.name.get_ref()),
            ));
        }
        let mut streams: Vec<(u32, &Spanned<String>)> = Vec::new();
        if let Some(c) = &a.cmds {
            streams.push((0, c));
        }
        for s in &a.stream {
            if streams.iter().any(|(id, _)| *id == s.id) {
                return Err(l.at(s.cmds.span(), format!("stream {} is defined twice", s.id)));
            }
            streams.push((s.id, &s.cmds));
        }
        if streams.is_empty() {
            return Err(l.at(
                a.name.span(),
                "an app needs `cmds` or [[app.stream]] sections",
            ));
        }
        let scope = l.scope(callees);
        let mut vars = Vec::new();
        let mut out = Vec::new();
        for (id, cmds) in streams {
            let toks = l.body_tokens(cmds)?;
            let mut p = Parser::host(&scope, toks);
            p.vars = vars;
            let c = p.host_block()?;
            p.finish()?;
            vars = p.vars;
            out.push(Stream { id, cmds: c });
        }
        apps.push(App {
            name: a.name.get_ref().clone(),
            streams: out,
            var_names: vars,
        });
    }
    Ok(apps)
}
