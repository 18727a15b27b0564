//! Pipeline strings: `name,name<key=value;key=value>,...`.
//!
//! Grammar (LLVM's new-pass-manager style, flat): passes are separated by
//! commas at nesting depth 0; a pass may carry options in angle brackets,
//! separated by `;` or `,`; an option is `key=value` or a bare `key` (meaning
//! `key=true`). `none` (or an empty string) is the empty pipeline. Names are
//! kebab-case and must be registered (see [`crate::registry`]).

use std::collections::BTreeMap;

use crate::error::{PassError, Result};

/// One element of a pipeline: a pass name and its raw options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassSpec {
    /// Registered kebab-case name.
    pub name: String,
    /// Options in the order given (keys unique).
    pub options: PassOptions,
}

/// The options of one pass instance, with typed accessors.
///
/// Accessors return [`PassError::BadOption`] naming the pass, key and the
/// expected form; [`PassOptions::check_known`] rejects keys a pass does not
/// define, listing the valid ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PassOptions {
    /// The pass these options belong to (for error messages).
    pub pass: String,
    /// Key to raw value.
    pub values: BTreeMap<String, String>,
}

impl PassOptions {
    /// Options with no keys for pass `pass`.
    pub fn empty(pass: &str) -> PassOptions {
        PassOptions {
            pass: pass.to_string(),
            values: BTreeMap::new(),
        }
    }

    fn bad(&self, key: &str, message: String) -> PassError {
        PassError::BadOption {
            pass: self.pass.clone(),
            option: key.to_string(),
            message,
        }
    }

    /// Fails if a key is not in `known` (a list of `(key, description)`).
    pub fn check_known(&self, known: &[(&str, &str)]) -> Result<()> {
        for k in self.values.keys() {
            if !known.iter().any(|(n, _)| n == k) {
                let valid: Vec<&str> = known.iter().map(|(n, _)| *n).collect();
                return Err(self.bad(
                    k,
                    if valid.is_empty() {
                        "this pass takes no options".to_string()
                    } else {
                        format!("unknown option; valid options: {}", valid.join(", "))
                    },
                ));
            }
        }
        Ok(())
    }

    /// Raw value of a key.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(|s| s.as_str())
    }

    /// An unsigned integer option (decimal), `default` when absent.
    pub fn u64_or(&self, key: &str, default: u64) -> Result<u64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .parse::<u64>()
                .map_err(|_| self.bad(key, format!("expected an unsigned integer, got `{v}`"))),
        }
    }

    /// A boolean option (`true`/`false`/`1`/`0`), `default` when absent.
    pub fn bool_or(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key) {
            None => Ok(default),
            Some("true") | Some("1") | Some("yes") => Ok(true),
            Some("false") | Some("0") | Some("no") => Ok(false),
            Some(v) => Err(self.bad(key, format!("expected true or false, got `{v}`"))),
        }
    }

    /// One of a fixed set of words, `default` when absent.
    pub fn choice_or<'a>(
        &self,
        key: &str,
        choices: &[&'a str],
        default: &'a str,
    ) -> Result<&'a str> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => choices.iter().find(|c| **c == v).copied().ok_or_else(|| {
                self.bad(
                    key,
                    format!("expected one of {}, got `{v}`", choices.join(", ")),
                )
            }),
        }
    }

    /// A `|`-separated list of words (empty list when absent).
    pub fn list(&self, key: &str) -> Vec<String> {
        match self.get(key) {
            None => Vec::new(),
            Some(v) => v
                .split('|')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
        }
    }
}

/// Parses a pipeline string into pass specs (names are not checked here).
pub fn parse(pipeline: &str) -> Result<Vec<PassSpec>> {
    let bad = |message: String| PassError::BadPipeline {
        pipeline: pipeline.to_string(),
        message,
    };
    let trimmed = pipeline.trim();
    if trimmed.is_empty() || trimmed == "none" {
        return Ok(Vec::new());
    }
    // Split at depth-0 commas.
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0usize;
    for (i, ch) in trimmed.char_indices() {
        match ch {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth < 0 {
                    return Err(bad(format!("unbalanced `>` at byte {i}")));
                }
            }
            ',' if depth == 0 => {
                parts.push(&trimmed[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(bad("unbalanced `<`".to_string()));
    }
    parts.push(&trimmed[start..]);
    let mut out = Vec::new();
    for part in parts {
        let part = part.trim();
        if part.is_empty() {
            return Err(bad("empty pass name (two commas in a row?)".to_string()));
        }
        let (name, opts) = match part.find('<') {
            None => (part, None),
            Some(p) => {
                if !part.ends_with('>') {
                    return Err(bad(format!("`{part}`: text after the closing `>`")));
                }
                (&part[..p], Some(&part[p + 1..part.len() - 1]))
            }
        };
        let name = name.trim();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(bad(format!(
                "`{name}` is not a kebab-case pass name (lower-case letters, digits, `-`)"
            )));
        }
        let mut options = PassOptions::empty(name);
        if let Some(opts) = opts {
            for kv in opts.split([';', ',']) {
                let kv = kv.trim();
                if kv.is_empty() {
                    continue;
                }
                let (k, v) = match kv.split_once('=') {
                    Some((k, v)) => (k.trim(), v.trim()),
                    None => (kv, "true"),
                };
                if k.is_empty() {
                    return Err(bad(format!("`{name}`: option with an empty key")));
                }
                if options
                    .values
                    .insert(k.to_string(), v.to_string())
                    .is_some()
                {
                    return Err(bad(format!("`{name}`: option `{k}` given twice")));
                }
            }
        }
        out.push(PassSpec {
            name: name.to_string(),
            options,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_options() {
        let p = parse("a,b-c<k=1;x=y|z>,d<flag>").unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].name, "a");
        assert_eq!(p[1].name, "b-c");
        assert_eq!(p[1].options.get("k"), Some("1"));
        assert_eq!(p[1].options.list("x"), vec!["y", "z"]);
        assert_eq!(p[2].options.get("flag"), Some("true"));
    }

    #[test]
    fn commas_inside_brackets_separate_options() {
        let p = parse("x<a=1,b=2>,y").unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].options.values.len(), 2);
    }

    #[test]
    fn none_and_empty_are_empty() {
        assert!(parse("none").unwrap().is_empty());
        assert!(parse("  ").unwrap().is_empty());
    }

    #[test]
    fn errors() {
        assert!(parse("a,,b").is_err());
        assert!(parse("a<k=1").is_err());
        assert!(parse("a>").is_err());
        assert!(parse("A").is_err());
        assert!(parse("a<k=1;k=2>").is_err());
        assert!(parse("a<k=1>x").is_err());
    }

    #[test]
    fn typed_accessors() {
        let p = parse("p<n=12;b=false;c=mid>").unwrap();
        let o = &p[0].options;
        assert_eq!(o.u64_or("n", 0).unwrap(), 12);
        assert_eq!(o.u64_or("missing", 7).unwrap(), 7);
        assert!(!o.bool_or("b", true).unwrap());
        assert_eq!(o.choice_or("c", &["lo", "mid"], "lo").unwrap(), "mid");
        assert!(o.choice_or("c", &["lo"], "lo").is_err());
        assert!(o.check_known(&[("n", ""), ("b", "")]).is_err());
        assert!(o.check_known(&[("n", ""), ("b", ""), ("c", "")]).is_ok());
        let e = parse("p<n=x>").unwrap()[0]
            .options
            .u64_or("n", 0)
            .unwrap_err();
        assert!(e.to_string().contains("unsigned integer"));
    }
}
