//! Delinearisation of accesses to fixed-size multi-dimensional arrays
//! (issue #35 part 2; LLVM's `Delinearization` with sizes taken from the GEP
//! type, `tryDelinearizeFixedSize`).
//!
//! [`crate::access`] flattens every address to a byte offset from its base,
//! so `a[i][j][k]` over `double (*a)[N][N]` is `8*N*N*i + 8*N*j + 8*k`, and the
//! linearised dependence test must allow `j` and `k` to reach any value: with
//! a symbolic trip count `n`, `a[i][j][k]` and `a[i+1][j'][k']` collide when
//! `n > N`. Here the strides of the array type in the access's GEP chain
//! (`[N x [N x double]]`: `8*N*N, 8*N, 8`) split the byte offset back into one
//! subscript per dimension: each monomial goes to the largest stride dividing
//! its coefficient, and the constant is split by rounding to the nearest
//! multiple of each stride in turn (clang folds `b[i-1][j][k]` into
//! `(b + i*8*N*N) - 8*N*N`, then `[0, j, k]`).
//!
//! **Assumption (C semantics).** The per-dimension test in [`crate::deps`]
//! is exact only if every subscript but the first stays within its dimension,
//! `0 <= s_k < N_k`, for every executed access: then an address has exactly
//! one such decomposition, and two accesses touch the same element iff all
//! their subscripts are equal, so a dimension whose subscripts never meet
//! rules the dependence out. C makes an access `a[i][j]` with `j` outside
//! `[0, M)` undefined, so programs the analysis must respect satisfy it for
//! the source subscripts, which the recovered ones equal for the usual forms
//! (unit-coefficient IVs and small constant offsets). Where the form is not
//! recognised (no array type, different strides or element sizes, a
//! coefficient no stride divides) the linearised test is used unchanged.

use inkwell::llvm_sys::core::{
    LLVMGetArrayLength2, LLVMGetElementType, LLVMGetGEPSourceElementType, LLVMGetTypeKind,
    LLVMIsAGetElementPtrInst,
};
use inkwell::llvm_sys::target::LLVMABISizeOfType;
use inkwell::llvm_sys::LLVMTypeKind;
use inkwell::targets::TargetData;
use inkwell::values::{AsValueRef, BasicValueEnum};

use crate::expr::Poly;
use crate::ir;

/// Largest number of GEPs followed back from an address.
const MAX_CHAIN: usize = 8;

/// Byte strides (outermost first, the element size last) of the first
/// multi-dimensional array type met walking the GEP chain of `ptr` back to
/// its base; `None` when there is none.
pub fn strides(td: &TargetData, ptr: BasicValueEnum<'_>) -> Option<Vec<i64>> {
    let mut v = ptr;
    for _ in 0..MAX_CHAIN {
        let i = ir::as_instruction(v)?;
        // SAFETY: `i` is a live instruction; the calls only read its type.
        unsafe {
            if LLVMIsAGetElementPtrInst(i.as_value_ref()).is_null() {
                return None;
            }
            let mut t = LLVMGetGEPSourceElementType(i.as_value_ref());
            if LLVMGetTypeKind(t) == LLVMTypeKind::LLVMArrayTypeKind && LLVMGetArrayLength2(t) > 0 {
                let mut out = Vec::new();
                loop {
                    out.push(LLVMABISizeOfType(td.as_mut_ptr(), t) as i64);
                    if LLVMGetTypeKind(t) != LLVMTypeKind::LLVMArrayTypeKind {
                        break;
                    }
                    t = LLVMGetElementType(t);
                }
                // One array level: `[N x T]` gives strides (N*size, size); a
                // row pointer, still a useful split.
                if out.len() >= 2 && out.iter().all(|&s| s > 0) {
                    return Some(out);
                }
                return None;
            }
        }
        v = ir::value_operand(i, 0)?;
    }
    None
}

/// Splits the byte offset `f` into one subscript per stride (see the module
/// doc); `None` when a coefficient or the constant does not fit the strides.
pub fn subscripts(f: &Poly, strides: &[i64]) -> Option<Vec<Poly>> {
    let d = strides.len();
    let mut out = vec![Poly::zero(); d];
    let mut konst = 0i64;
    for (mono, c) in f.terms() {
        if mono.is_empty() {
            konst = c;
            continue;
        }
        let k = (0..d).find(|&k| c % strides[k] == 0)?;
        let mut t = Poly::constant(c / strides[k]);
        for s in mono {
            t = t.mul(&Poly::sym(*s)).ok()?;
        }
        out[k] = out[k].add(&t).ok()?;
    }
    for k in 0..d {
        let s = strides[k];
        let q = if k + 1 == d {
            if konst % s != 0 {
                return None;
            }
            konst / s
        } else {
            // Nearest multiple: offsets like `-1` row stay in their dimension.
            (konst + konst.signum() * s / 2) / s
        };
        konst -= q * s;
        out[k] = out[k].add(&Poly::constant(q)).ok()?;
    }
    (konst == 0).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{Sym, SymId};
    use crate::loops::LoopId;

    #[test]
    fn splits_a_stencil_offset() {
        let i = Poly::sym(Sym::Iv(LoopId(0)));
        let j = Poly::sym(Sym::Iv(LoopId(1)));
        let k = Poly::sym(Sym::Iv(LoopId(2)));
        let st = [32768, 512, 8];
        // b[i-1][j][k+1]
        let f = i
            .scale(32768)
            .unwrap()
            .add(&j.scale(512).unwrap())
            .unwrap()
            .add(&k.scale(8).unwrap())
            .unwrap()
            .add(&Poly::constant(-32768 + 8))
            .unwrap();
        let s = subscripts(&f, &st).unwrap();
        assert_eq!(s[0], i.add(&Poly::constant(-1)).unwrap());
        assert_eq!(s[1], j);
        assert_eq!(s[2], k.add(&Poly::constant(1)).unwrap());
        // b[i][j-1][k]
        let g = i
            .scale(32768)
            .unwrap()
            .add(&j.scale(512).unwrap())
            .unwrap()
            .add(&k.scale(8).unwrap())
            .unwrap()
            .add(&Poly::constant(-512))
            .unwrap();
        let s = subscripts(&g, &st).unwrap();
        assert_eq!(s[1], j.add(&Poly::constant(-1)).unwrap());
        assert_eq!(s[2], k);
    }

    #[test]
    fn refuses_misaligned_offsets() {
        let n = Poly::sym(Sym::Param(SymId(0)));
        assert!(subscripts(&n.scale(4).unwrap(), &[512, 8]).is_none());
        assert!(subscripts(&Poly::constant(12), &[512, 8]).is_none());
    }
}
