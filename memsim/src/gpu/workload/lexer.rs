//! Tokens of the body and host-command mini-language, with 1-based line and column
//! positions in the enclosing file.
//!
//! Identifiers may contain dots between parts (`load.g32`, `tid.x`, `launch.cdp`), so
//! opcodes and builtins are single tokens; `..` (a range) ends an identifier or number.
//! Integers are decimal or `0x` hexadecimal, `_` allowed as a separator. `#` starts a
//! comment to the end of the line. Newlines are tokens: they end statements.

use super::{Error, Result};

/// A token kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    /// A name, possibly dotted.
    Ident(String),
    /// A non-negative integer literal.
    Int(i64),
    /// Punctuation or an operator.
    Punct(&'static str),
    /// End of a line.
    Newline,
    /// End of input.
    Eof,
}

/// A token and where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// 1-based line in the file.
    pub line: usize,
    /// 1-based column in the file.
    pub col: usize,
}

/// Operators, longest first so that `<=` wins over `<`.
const PUNCTS: &[&str] = &[
    "..", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "(", ")", "[", "]", "{", "}", ",", ";",
    "=", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "!", "~",
];

/// Split `text` into tokens; `line` and `col` are the file position of its first
/// character. Always ends with `Eof`.
pub fn lex(text: &str, origin: &str, line: usize, col: usize) -> Result<Vec<Token>> {
    let mut out = Vec::new();
    let (mut line, mut col) = (line, col);
    let mut chars = text.char_indices().peekable();
    let err = |line, col, msg: String| Error::At {
        origin: origin.to_string(),
        line,
        col,
        msg,
    };
    while let Some(&(i, c)) = chars.peek() {
        let (tl, tc) = (line, col);
        if c == '\n' {
            chars.next();
            out.push(Token {
                tok: Tok::Newline,
                line: tl,
                col: tc,
            });
            line += 1;
            col = 1;
            continue;
        }
        if c.is_whitespace() {
            chars.next();
            col += 1;
            continue;
        }
        if c == '#' {
            while let Some(&(_, c)) = chars.peek() {
                if c == '\n' {
                    break;
                }
                chars.next();
                col += 1;
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let mut end = i;
            let bytes = text.as_bytes();
            loop {
                while end < bytes.len()
                    && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_')
                {
                    end += 1;
                }
                // A dot continues the name only when a name character follows it.
                if end + 1 < bytes.len()
                    && bytes[end] == b'.'
                    && (bytes[end + 1].is_ascii_alphanumeric() || bytes[end + 1] == b'_')
                {
                    end += 1;
                    continue;
                }
                break;
            }
            let s = &text[i..end];
            for _ in s.chars() {
                chars.next();
            }
            col += s.len();
            out.push(Token {
                tok: Tok::Ident(s.to_string()),
                line: tl,
                col: tc,
            });
            continue;
        }
        if c.is_ascii_digit() {
            let bytes = text.as_bytes();
            let mut end = i;
            while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
                end += 1;
            }
            let s = &text[i..end];
            for _ in s.chars() {
                chars.next();
            }
            col += s.len();
            let digits: String = s.chars().filter(|&c| c != '_').collect();
            let v = if let Some(h) = digits
                .strip_prefix("0x")
                .or_else(|| digits.strip_prefix("0X"))
            {
                i64::from_str_radix(h, 16)
            } else {
                digits.parse::<i64>()
            };
            let v =
                v.map_err(|_| err(tl, tc, format!("bad integer `{s}` (i64 decimal or 0x hex)")))?;
            out.push(Token {
                tok: Tok::Int(v),
                line: tl,
                col: tc,
            });
            continue;
        }
        let rest = &text[i..];
        let Some(p) = PUNCTS.iter().find(|p| rest.starts_with(**p)) else {
            return Err(err(tl, tc, format!("unexpected character `{c}`")));
        };
        for _ in 0..p.len() {
            chars.next();
        }
        col += p.len();
        out.push(Token {
            tok: Tok::Punct(p),
            line: tl,
            col: tc,
        });
    }
    out.push(Token {
        tok: Tok::Eof,
        line,
        col,
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotted_names_ranges_and_positions() {
        let t = lex("v = load.g32 T[i]\n loop k in 0..n_1 { }", "f", 3, 5).unwrap();
        let kinds: Vec<_> = t.iter().map(|t| t.tok.clone()).collect();
        assert_eq!(kinds[2], Tok::Ident("load.g32".into()));
        assert_eq!(kinds[12], Tok::Punct(".."));
        assert_eq!(kinds[13], Tok::Ident("n_1".into()));
        assert_eq!((t[0].line, t[0].col), (3, 5));
        assert_eq!((t[2].line, t[2].col), (3, 9));
        // `loop` is on the next line, column 2.
        assert_eq!((t[8].line, t[8].col), (4, 2));
    }

    #[test]
    fn bad_character_and_integer_have_positions() {
        let e = lex("a = 1\n  b = $", "w.toml", 10, 1)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "w.toml:11:7: unexpected character `$`");
        let e = lex("x = 99999999999999999999", "w", 1, 1)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("w:1:5: bad integer"), "{e}");
    }
}
