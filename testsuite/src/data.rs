//! The real inputs of the benchmarks, the evaluation and the tests (Matrix Market
//! matrices, the Spark98 mesh, METIS graphs, edge lists), which ship with the
//! repository gzip-compressed under `data/` (each file's source, license and MD5 in
//! `data/README.md`).
//!
//! The C benchmarks read plain files by path, so [`data_dir`] unpacks every
//! `data/<file>.gz` once into `target/weft-data/<file>` and returns that folder;
//! `$WEFT_DATA_DIR`, when set, replaces it (a folder of plain files with the same
//! layout, used as is). [`require`] turns a missing input into an error that names
//! the file and what to do.
//!
//! Invariants: an unpacked file is written under a temporary name beside its final
//! name and then renamed, so processes that unpack at the same time (parallel test
//! binaries, `weft eval` workers) never read half a file; a file is unpacked again
//! when its `.gz` is newer than the unpacked copy (a `git pull` that changes an
//! input refreshes it); the unpacked folder is only a cache and may be deleted.

use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use flate2::read::GzDecoder;

/// Environment variable that replaces the shipped data with a folder of plain files.
pub const DATA_DIR_VAR: &str = "WEFT_DATA_DIR";

/// Errors from finding or unpacking an input file.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// A benchmark or test needs a file the data folder does not hold.
    #[error("input file {} not found ({hint})", path.display())]
    Missing {
        /// The path that was looked for.
        path: PathBuf,
        /// What to do about it.
        hint: String,
    },
    /// Reading a shipped file or writing its unpacked copy failed.
    #[error("unpacking {}: {source}", path.display())]
    Io {
        /// The file involved.
        path: PathBuf,
        /// Underlying I/O or decompression error.
        source: io::Error,
    },
}

/// Result type of this module.
pub type Result<T> = std::result::Result<T, DataError>;

fn repo_root() -> &'static Path {
    // The testsuite crate sits one level below the repository root.
    let testsuite = Path::new(env!("CARGO_MANIFEST_DIR"));
    testsuite.parent().unwrap_or(testsuite)
}

/// The folder of compressed inputs that ships with the repository (`data/`).
pub fn shipped_dir() -> PathBuf {
    repo_root().join("data")
}

/// The folder [`data_dir`] unpacks the shipped inputs into (`target/weft-data/`).
pub fn unpacked_dir() -> PathBuf {
    repo_root().join("target").join("weft-data")
}

/// Directory holding the plain input files: `$WEFT_DATA_DIR` if set, else the shipped
/// data unpacked into [`unpacked_dir`] (done once per process, on the first call).
///
/// An unpacking failure is reported on stderr and not fatal here: only the files it
/// concerns are then absent, and [`require`] (or the program reading them) names them.
pub fn data_dir() -> PathBuf {
    if let Some(d) = std::env::var_os(DATA_DIR_VAR) {
        return PathBuf::from(d);
    }
    static UNPACKED: OnceLock<PathBuf> = OnceLock::new();
    UNPACKED
        .get_or_init(|| {
            let out = unpacked_dir();
            if let Err(e) = unpack_all(&shipped_dir(), &out) {
                eprintln!("weft: cannot unpack the shipped input data: {e}");
            }
            out
        })
        .clone()
}

/// The path of input `rel` (relative to [`data_dir`]), or an error naming the file and
/// how to get it when it does not exist.
pub fn require(rel: impl AsRef<Path>) -> Result<PathBuf> {
    let path = data_dir().join(rel.as_ref());
    if path.is_file() {
        Ok(path)
    } else {
        Err(missing(rel.as_ref(), path))
    }
}

/// The [`DataError::Missing`] for input `rel`, looked for at `path`.
pub fn missing(rel: &Path, path: PathBuf) -> DataError {
    let hint = match std::env::var_os(DATA_DIR_VAR) {
        Some(d) => format!(
            "{DATA_DIR_VAR} is {}: copy the file there, or unset {DATA_DIR_VAR} to use the \
             data shipped in {}; data/README.md lists every input and its source",
            Path::new(&d).display(),
            shipped_dir().display()
        ),
        None => format!(
            "the repository ships it as {}: restore it with `git checkout -- data/`, or set \
             {DATA_DIR_VAR} to a folder holding it; data/README.md lists every input and its \
             source",
            shipped_dir().join(gz_name(rel)).display()
        ),
    };
    DataError::Missing { path, hint }
}

fn gz_name(rel: &Path) -> PathBuf {
    let mut name = rel.as_os_str().to_owned();
    name.push(".gz");
    PathBuf::from(name)
}

/// Unpacks every `<file>.gz` under `src` (recursively) to `dst/<file>` unless an
/// unpacked copy at least as new exists; returns how many files were unpacked.
pub fn unpack_all(src: &Path, dst: &Path) -> Result<usize> {
    let mut gz = Vec::new();
    collect_gz(src, Path::new(""), &mut gz)?;
    if gz.is_empty() {
        return Err(DataError::Missing {
            path: src.to_path_buf(),
            hint: format!(
                "no .gz inputs in it: restore the folder with `git checkout -- data/`, or set \
                 {DATA_DIR_VAR} to a folder of plain input files"
            ),
        });
    }
    let mut unpacked = 0;
    for rel in gz {
        let from = src.join(&rel);
        let to = dst.join(rel.with_extension(""));
        if !is_fresh(&from, &to) {
            unpack(&from, &to)?;
            unpacked += 1;
        }
    }
    Ok(unpacked)
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> DataError + '_ {
    move |source| DataError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Relative paths of the `.gz` files under `dir`, in sorted order.
fn collect_gz(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let dir = root.join(rel);
    let mut entries = fs::read_dir(&dir)
        .map_err(io_err(&dir))?
        .map(|e| e.map(|e| e.file_name()))
        .collect::<io::Result<Vec<_>>>()
        .map_err(io_err(&dir))?;
    entries.sort();
    for name in entries {
        let r = rel.join(&name);
        let full = root.join(&r);
        if full.is_dir() {
            collect_gz(root, &r, out)?;
        } else if r.extension().is_some_and(|e| e == "gz") {
            out.push(r);
        }
    }
    Ok(())
}

/// True when `to` exists and was written no earlier than `from` was modified.
fn is_fresh(from: &Path, to: &Path) -> bool {
    let modified = |p: &Path| fs::metadata(p).and_then(|m| m.modified()).ok();
    match (modified(from), modified(to)) {
        (Some(f), Some(t)) => t >= f,
        _ => false,
    }
}

/// Decompresses `from` into `to` through a temporary file renamed into place. The gzip
/// trailer's CRC-32 and length are checked by the decoder, so a damaged file fails here.
fn unpack(from: &Path, to: &Path) -> Result<()> {
    let parent = to.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(io_err(parent))?;
    let mut tmp_name = to.as_os_str().to_owned();
    tmp_name.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp_name);
    let result = (|| {
        let mut reader = GzDecoder::new(File::open(from).map_err(io_err(from))?);
        let mut writer = BufWriter::new(File::create(&tmp).map_err(io_err(&tmp))?);
        io::copy(&mut reader, &mut writer).map_err(io_err(from))?;
        writer
            .into_inner()
            .map_err(|e| DataError::Io {
                path: tmp.clone(),
                source: e.into_error(),
            })?
            .sync_all()
            .map_err(io_err(&tmp))?;
        fs::rename(&tmp, to).map_err(io_err(to))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use flate2::Compression;
    use std::io::Write;

    fn write_gz(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut e = GzEncoder::new(File::create(path).unwrap(), Compression::best());
        e.write_all(text.as_bytes()).unwrap();
        e.finish().unwrap();
    }

    #[test]
    fn unpacks_nested_files_once_and_again_when_the_archive_is_newer() {
        let dir = tempfile::tempdir().unwrap();
        let (src, dst) = (dir.path().join("src"), dir.path().join("dst"));
        write_gz(&src.join("graphs/a.edges.gz"), "0 1\n1 2\n");
        write_gz(&src.join("b.mtx.gz"), "%%MatrixMarket\n");
        fs::write(src.join("README.md"), "not an input").unwrap();
        assert_eq!(unpack_all(&src, &dst).unwrap(), 2);
        assert_eq!(
            fs::read_to_string(dst.join("graphs/a.edges")).unwrap(),
            "0 1\n1 2\n"
        );
        assert_eq!(
            fs::read_to_string(dst.join("b.mtx")).unwrap(),
            "%%MatrixMarket\n"
        );
        assert!(!dst.join("README.md").exists());
        assert_eq!(unpack_all(&src, &dst).unwrap(), 0, "fresh copies are kept");
        // an archive newer than its copy is unpacked again
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        write_gz(&src.join("b.mtx.gz"), "changed\n");
        File::options()
            .write(true)
            .open(src.join("b.mtx.gz"))
            .unwrap()
            .set_modified(later)
            .unwrap();
        assert_eq!(unpack_all(&src, &dst).unwrap(), 1);
        assert_eq!(fs::read_to_string(dst.join("b.mtx")).unwrap(), "changed\n");
    }

    #[test]
    fn damaged_archive_and_empty_folder_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let (src, dst) = (dir.path().join("src"), dir.path().join("dst"));
        fs::create_dir_all(&src).unwrap();
        let e = unpack_all(&src, &dst).unwrap_err().to_string();
        assert!(e.contains("git checkout -- data/"), "{e}");
        write_gz(&src.join("x.graph.gz"), "1 2 3 4 5 6 7 8\n");
        let mut bytes = fs::read(src.join("x.graph.gz")).unwrap();
        let n = bytes.len();
        bytes[n - 6] ^= 0xff; // corrupt the CRC-32 in the trailer
        fs::write(src.join("x.graph.gz"), bytes).unwrap();
        let e = unpack_all(&src, &dst).unwrap_err().to_string();
        assert!(e.contains("x.graph.gz"), "{e}");
        assert!(!dst.join("x.graph").exists(), "no partial file is left");
        assert_eq!(fs::read_dir(&dst).unwrap().count(), 0, "no temporary file");
    }

    #[test]
    fn missing_input_names_the_file_and_the_remedy() {
        let e = missing(
            Path::new("metis/none.graph"),
            PathBuf::from("/x/none.graph"),
        );
        let s = e.to_string();
        assert!(s.contains("/x/none.graph"), "{s}");
        assert!(s.contains("data/README.md"), "{s}");
        assert!(s.contains(DATA_DIR_VAR), "{s}");
    }

    #[test]
    fn every_shipped_input_is_listed_in_the_data_readme_and_md5sums() {
        let mut gz = Vec::new();
        collect_gz(&shipped_dir(), Path::new(""), &mut gz).unwrap();
        let readme = fs::read_to_string(shipped_dir().join("README.md")).unwrap();
        let sums = fs::read_to_string(shipped_dir().join("MD5SUMS")).unwrap();
        assert_eq!(sums.lines().count(), gz.len(), "one MD5SUMS line per file");
        for rel in gz {
            let plain = rel.with_extension("").to_string_lossy().into_owned();
            assert!(
                readme.contains(&format!("| `{plain}` |")),
                "{plain} not in README"
            );
            assert!(
                sums.lines().any(|l| l.ends_with(&format!("  {plain}"))),
                "{plain} not in MD5SUMS"
            );
        }
    }
}
