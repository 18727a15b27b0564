//! Symbolic integer expressions: polynomials with integer coefficients over
//! loop induction variables and loop-invariant symbols.
//!
//! Access functions are *affine in the induction variables* (dissertation
//! §5.5.1, `r = A i + o`), but their coefficients may be symbolic: the
//! flattened `A[i*n + j]` has coefficient `n` on `i`. A [`Poly`] holds a sum
//! of monomials; a monomial is a sorted product of [`Sym`]s. A poly is affine
//! when no monomial holds more than one induction variable.
//!
//! Invariant: no monomial has a zero coefficient; the constant term is the
//! empty monomial.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use crate::loops::LoopId;

/// Index of a loop-invariant symbol in a function's symbol table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SymId(pub u32);

/// A symbol of an expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Sym {
    /// The value of the primary induction variable of a loop (the phi).
    Iv(LoopId),
    /// A value invariant in the loops where the expression is used.
    Param(SymId),
}

/// Polynomial over [`Sym`]s with `i64` coefficients.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Poly {
    terms: BTreeMap<Vec<Sym>, i64>,
}

/// Overflow or size blow-up while building an expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overflow;

/// Largest number of monomials a product may have before it is rejected.
const MAX_TERMS: usize = 64;

impl Poly {
    /// The zero polynomial.
    pub fn zero() -> Poly {
        Poly::default()
    }

    /// A constant.
    pub fn constant(c: i64) -> Poly {
        let mut p = Poly::default();
        if c != 0 {
            p.terms.insert(Vec::new(), c);
        }
        p
    }

    /// A single symbol.
    pub fn sym(s: Sym) -> Poly {
        let mut p = Poly::default();
        p.terms.insert(vec![s], 1);
        p
    }

    /// The monomials and their coefficients.
    pub fn terms(&self) -> impl Iterator<Item = (&[Sym], i64)> {
        self.terms.iter().map(|(m, c)| (m.as_slice(), *c))
    }

    /// Whether the poly is zero.
    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// The value if the poly is a constant.
    pub fn as_const(&self) -> Option<i64> {
        match self.terms.len() {
            0 => Some(0),
            1 => self.terms.get(&Vec::new()).copied(),
            _ => None,
        }
    }

    /// The constant term.
    pub fn constant_term(&self) -> i64 {
        self.terms.get(&Vec::new()).copied().unwrap_or(0)
    }

    fn add_term(&mut self, m: Vec<Sym>, c: i64) -> Result<(), Overflow> {
        if c == 0 {
            return Ok(());
        }
        let e = self.terms.entry(m.clone()).or_insert(0);
        *e = e.checked_add(c).ok_or(Overflow)?;
        if *e == 0 {
            self.terms.remove(&m);
        }
        Ok(())
    }

    /// `self + other`.
    pub fn add(&self, other: &Poly) -> Result<Poly, Overflow> {
        let mut r = self.clone();
        for (m, c) in &other.terms {
            r.add_term(m.clone(), *c)?;
        }
        Ok(r)
    }

    /// `self - other`.
    pub fn sub(&self, other: &Poly) -> Result<Poly, Overflow> {
        self.add(&other.scale(-1)?)
    }

    /// `k * self`.
    pub fn scale(&self, k: i64) -> Result<Poly, Overflow> {
        let mut r = Poly::default();
        if k == 0 {
            return Ok(r);
        }
        for (m, c) in &self.terms {
            r.terms.insert(m.clone(), c.checked_mul(k).ok_or(Overflow)?);
        }
        Ok(r)
    }

    /// `self * other`.
    pub fn mul(&self, other: &Poly) -> Result<Poly, Overflow> {
        let mut r = Poly::default();
        for (m1, c1) in &self.terms {
            for (m2, c2) in &other.terms {
                let mut m: Vec<Sym> = m1.iter().chain(m2.iter()).copied().collect();
                m.sort();
                r.add_term(m, c1.checked_mul(*c2).ok_or(Overflow)?)?;
                if r.terms.len() > MAX_TERMS {
                    return Err(Overflow);
                }
            }
        }
        Ok(r)
    }

    /// Exact division of every coefficient by `k`, if possible.
    pub fn div_exact(&self, k: i64) -> Option<Poly> {
        if k == 0 {
            return None;
        }
        let mut r = Poly::default();
        for (m, c) in &self.terms {
            if c % k != 0 {
                return None;
            }
            r.terms.insert(m.clone(), c / k);
        }
        Some(r)
    }

    /// Whether any monomial mentions `s`.
    pub fn mentions(&self, s: Sym) -> bool {
        self.terms.keys().any(|m| m.contains(&s))
    }

    /// All symbols mentioned.
    pub fn symbols(&self) -> Vec<Sym> {
        let mut v: Vec<Sym> = self.terms.keys().flatten().copied().collect();
        v.sort();
        v.dedup();
        v
    }

    /// Induction variables mentioned.
    pub fn ivs(&self) -> Vec<LoopId> {
        self.symbols()
            .into_iter()
            .filter_map(|s| match s {
                Sym::Iv(l) => Some(l),
                _ => None,
            })
            .collect()
    }

    /// Whether every monomial has at most one induction variable, of degree 1.
    pub fn is_affine_in_ivs(&self) -> bool {
        self.terms
            .keys()
            .all(|m| m.iter().filter(|s| matches!(s, Sym::Iv(_))).count() <= 1)
    }

    /// Splits an affine poly into (coefficient of `Iv(l)`, rest): `self = coef*iv + rest`.
    pub fn split_iv(&self, l: LoopId) -> (Poly, Poly) {
        self.split_sym(Sym::Iv(l))
    }

    /// Splits into (coefficient of `iv`, rest): `self = coef*iv + rest` when
    /// every monomial mentions `iv` at most once.
    pub fn split_sym(&self, iv: Sym) -> (Poly, Poly) {
        let mut coef = Poly::default();
        let mut rest = Poly::default();
        for (m, c) in &self.terms {
            if let Some(pos) = m.iter().position(|s| *s == iv) {
                let mut m2 = m.clone();
                m2.remove(pos);
                coef.terms.insert(m2, *c);
            } else {
                rest.terms.insert(m.clone(), *c);
            }
        }
        (coef, rest)
    }

    /// Replaces symbol `s` by `by` everywhere.
    pub fn substitute(&self, s: Sym, by: &Poly) -> Result<Poly, Overflow> {
        let mut r = Poly::default();
        for (m, c) in &self.terms {
            let k = m.iter().filter(|x| **x == s).count();
            let rest: Vec<Sym> = m.iter().filter(|x| **x != s).copied().collect();
            let mut t = Poly::default();
            t.terms.insert(rest, *c);
            for _ in 0..k {
                t = t.mul(by)?;
            }
            r = r.add(&t)?;
        }
        Ok(r)
    }

    /// Renders the poly with `name` giving each symbol's text.
    pub fn render(&self, name: &dyn Fn(Sym) -> String) -> String {
        if self.terms.is_empty() {
            return "0".into();
        }
        // Non-constant terms first (IVs before params by symbol order), constant last.
        let mut items: Vec<(&Vec<Sym>, i64)> = self
            .terms
            .iter()
            .filter(|(m, _)| !m.is_empty())
            .map(|(m, c)| (m, *c))
            .collect();
        items.sort_by(|a, b| {
            let ka = a.0.iter().any(|s| matches!(s, Sym::Iv(_)));
            let kb = b.0.iter().any(|s| matches!(s, Sym::Iv(_)));
            kb.cmp(&ka)
                .then((a.1 < 0).cmp(&(b.1 < 0)))
                .then(a.0.cmp(b.0))
        });
        let mut out = String::new();
        let mut first = true;
        for (m, c) in items {
            let body = m.iter().map(|s| name(*s)).collect::<Vec<_>>().join("*");
            let (neg, mag) = (c < 0, c.unsigned_abs());
            if first {
                if neg {
                    out.push('-');
                }
            } else {
                out.push_str(if neg { " - " } else { " + " });
            }
            if mag != 1 {
                let _ = write!(out, "{mag}*");
            }
            out.push_str(&body);
            first = false;
        }
        let k = self.constant_term();
        if k != 0 {
            if first {
                let _ = write!(out, "{k}");
            } else if k < 0 {
                let _ = write!(out, " - {}", k.unsigned_abs());
            } else {
                let _ = write!(out, " + {k}");
            }
        }
        out
    }
}

/// `gcd(a, b)` of absolute values (`gcd(0, 0) = 0`).
pub fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a.min(i64::MAX as u64) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: Sym) -> String {
        match s {
            Sym::Iv(l) => format!("i{}", l.0),
            Sym::Param(p) => format!("p{}", p.0),
        }
    }

    #[test]
    fn flattened_index_is_affine_with_symbolic_coefficient() {
        let i = Poly::sym(Sym::Iv(LoopId(0)));
        let j = Poly::sym(Sym::Iv(LoopId(1)));
        let np = Poly::sym(Sym::Param(SymId(0)));
        let e = i
            .mul(&np)
            .unwrap()
            .add(&j)
            .unwrap()
            .add(&Poly::constant(-1))
            .unwrap();
        assert!(e.is_affine_in_ivs());
        assert_eq!(e.render(&n), "i0*p0 + i1 - 1");
        let (c, r) = e.split_iv(LoopId(0));
        assert_eq!(c, np);
        assert_eq!(r.render(&n), "i1 - 1");
        let sq = i.mul(&j).unwrap();
        assert!(!sq.is_affine_in_ivs());
        assert_eq!(e.sub(&e).unwrap(), Poly::zero());
        assert_eq!(e.scale(8).unwrap().div_exact(8).unwrap(), e);
        assert!(e
            .scale(8)
            .unwrap()
            .add(&Poly::constant(1))
            .unwrap()
            .div_exact(8)
            .is_none());
    }

    #[test]
    fn substitution_and_gcd() {
        let i = Poly::sym(Sym::Iv(LoopId(0)));
        let e = i.scale(3).unwrap().add(&Poly::constant(2)).unwrap();
        let s = e
            .substitute(Sym::Iv(LoopId(0)), &Poly::constant(4))
            .unwrap();
        assert_eq!(s.as_const(), Some(14));
        assert_eq!(gcd(12, -18), 6);
        assert_eq!(gcd(0, 5), 5);
        assert_eq!(
            Poly::constant(i64::MAX).add(&Poly::constant(1)),
            Err(Overflow)
        );
    }
}
