//! Loading programs: textual IR (`.ll`), bitcode (`.bc`), or C through `clang-19`.
//!
//! C is compiled with [`ClangOptions::default_flags`]:
//! `-O1 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -fno-discard-value-names -g0`.
//! `-O1` runs mem2reg, LICM, loop rotation and IV widening, which turns source
//! loops into the canonical, rotated form the loop analysis reads (phi IVs,
//! preheaders, dedicated exits); unrolling and vectorization are off because
//! they destroy the one-iteration-per-source-iteration correspondence the
//! schedulers need (dissertation §5.5.1 works on source iteration vectors).
//! `-fno-discard-value-names` keeps source names (`%n`, `%A`) so reports are
//! readable. Any of this can be overridden with [`ClangOptions::flags`].

use std::path::{Path, PathBuf};
use std::process::Command;

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;

use crate::error::{Error, Result};

/// How C files are compiled to IR.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClangOptions {
    /// The compiler to run. Default `clang-19`.
    pub clang: String,
    /// Flags passed before the input file. Default [`ClangOptions::default_flags`].
    pub flags: Vec<String>,
}

impl ClangOptions {
    /// The default flags: `-O1 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -fno-discard-value-names -g0`.
    pub fn default_flags() -> Vec<String> {
        [
            "-O1",
            "-fno-unroll-loops",
            "-fno-vectorize",
            "-fno-slp-vectorize",
            "-fno-discard-value-names",
            "-g0",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }
}

impl Default for ClangOptions {
    fn default() -> Self {
        ClangOptions {
            clang: "clang-19".into(),
            flags: Self::default_flags(),
        }
    }
}

/// Compiles a C file to textual LLVM IR with clang.
pub fn compile_c(path: &Path, opts: &ClangOptions) -> Result<String> {
    if !path.exists() {
        return Err(Error::Io {
            path: path.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        });
    }
    let out = Command::new(&opts.clang)
        .args(&opts.flags)
        .args(["-S", "-emit-llvm", "-o", "-"])
        .arg(path)
        .output()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::ClangMissing {
                    clang: opts.clang.clone(),
                }
            } else {
                Error::Io {
                    path: PathBuf::from(&opts.clang),
                    source: e,
                }
            }
        })?;
    if !out.status.success() {
        return Err(Error::ClangFailed {
            clang: opts.clang.clone(),
            file: path.to_path_buf(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Parses textual IR held in memory. `name` is used in error messages.
pub fn parse_ir<'ctx>(ctx: &'ctx Context, text: &str, name: &str) -> Result<Module<'ctx>> {
    let buf = MemoryBuffer::create_from_memory_range_copy(text.as_bytes(), name);
    let module = ctx
        .create_module_from_ir(buf)
        .map_err(|e| parse_error(name, &e.to_string()))?;
    verify(&module, name)?;
    Ok(module)
}

fn verify(module: &Module<'_>, name: &str) -> Result<()> {
    module.verify().map_err(|e| Error::Verify {
        file: name.to_string(),
        message: e.to_string().trim().to_string(),
    })
}

/// Turns LLVM's `<buffer>:LINE:COL: error: msg` into a [`Error::Parse`].
fn parse_error(file: &str, llvm: &str) -> Error {
    let mut line = None;
    let mut message = llvm.trim().to_string();
    // LLVM prints "name:LINE:COL: error: message\n<source line>\n   ^".
    let first = llvm.lines().next().unwrap_or("");
    if let Some(pos) = first.find(": error: ") {
        let head = &first[..pos];
        let mut parts = head.rsplitn(3, ':');
        let _col = parts.next();
        if let Some(l) = parts.next().and_then(|s| s.parse::<u32>().ok()) {
            line = Some(l);
        }
        message = first[pos + ": error: ".len()..].to_string();
    }
    Error::Parse {
        file: file.to_string(),
        line,
        message,
    }
}

/// Loads a module from a `.ll`, `.bc` or `.c` file (C through clang with `opts`).
pub fn load_module<'ctx>(
    ctx: &'ctx Context,
    path: &Path,
    opts: &ClangOptions,
) -> Result<Module<'ctx>> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let name = path.display().to_string();
    match ext.as_str() {
        "ll" => {
            let text = std::fs::read(path).map_err(|source| Error::Io {
                path: path.to_path_buf(),
                source,
            })?;
            let text = String::from_utf8_lossy(&text);
            parse_ir(ctx, &text, &name)
        }
        "bc" => {
            let bytes = std::fs::read(path).map_err(|source| Error::Io {
                path: path.to_path_buf(),
                source,
            })?;
            let buf = MemoryBuffer::create_from_memory_range_copy(&bytes, &name);
            let module = ctx
                .create_module_from_ir(buf)
                .map_err(|e| parse_error(&name, &e.to_string()))?;
            verify(&module, &name)?;
            Ok(module)
        }
        "c" | "i" => {
            let text = compile_c(path, opts)?;
            parse_ir(ctx, &text, &name)
        }
        _ => Err(Error::UnsupportedInput(path.to_path_buf())),
    }
}
