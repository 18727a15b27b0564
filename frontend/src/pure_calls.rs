//! Calls that are not memory accesses (issue 35): a loop calling `sqrt` or
//! `exp` is as parallel as one computing the value inline. The dependence
//! test (dissertation §4.4.1) looks at loads and stores; a call it cannot see
//! into is a possible access to anything, unless it is one of these:
//!
//! * an LLVM intrinsic other than the memory ones ([`ir::is_pure_intrinsic`]:
//!   `llvm.fabs`, `llvm.sqrt`, `llvm.fmuladd`, ...);
//! * a call whose call site or callee says `memory(none)` (LLVM 19's form
//!   of `readnone`: clang's `__attribute__((const))`, or what
//!   `-fno-math-errno` gives the C math functions);
//! * a C library math function (`sqrt`, `exp`, `pow`, `sin`, `floor`, ...,
//!   with their `f`/`l` variants) declared, not defined, in the module, when
//!   the module never reads `errno` (no `__errno_location`). With `errno`
//!   (clang's default), these functions are `memory(write)`: their only
//!   effect besides the result is setting `errno` on a domain or range
//!   error. `errno` is per thread, so workers setting it cannot disturb each
//!   other or the loop; what changes is the value the calling thread sees
//!   after the loop, which weft assumes is not read (the program's own
//!   translation unit does not read it; other translation units are not
//!   visible, as with `-fno-math-errno`). Functions with other side effects
//!   (`lgamma` sets `signgam`, `frexp`/`modf`/`sincos` write through a
//!   pointer, `rand` has state) are not in the list.

use inkwell::llvm_sys::core::{
    LLVMGetCallSiteEnumAttribute, LLVMGetCalledValue, LLVMGetEnumAttributeAtIndex,
    LLVMGetEnumAttributeKindForName, LLVMGetEnumAttributeValue, LLVMGetGlobalParent,
    LLVMGetNamedFunction, LLVMGetValueName2, LLVMIsAFunction, LLVMIsDeclaration,
};
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use crate::ir;

/// C math functions whose only side effect is `errno` (C11 7.12), without
/// their `f`/`l` suffixes.
const LIBM: &[&str] = &[
    "sqrt",
    "cbrt",
    "hypot",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "logb",
    "pow",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "erf",
    "erfc",
    "tgamma",
    "fmod",
    "remainder",
    "fabs",
    "floor",
    "ceil",
    "round",
    "trunc",
    "rint",
    "nearbyint",
    "lround",
    "lrint",
    "llround",
    "llrint",
    "fmin",
    "fmax",
    "fdim",
    "fma",
    "copysign",
    "ldexp",
    "scalbn",
    "ilogb",
    "nextafter",
];

/// Whether `name` is one of the [`LIBM`] functions or their `f`/`l` variants.
pub fn is_libm(name: &str) -> bool {
    LIBM.contains(&name)
        || name
            .strip_suffix(['f', 'l'])
            .is_some_and(|b| LIBM.contains(&b))
}

/// The value of the `memory` attribute at function index of a call site or
/// of a function (`None`: no such attribute). 0 is `memory(none)`.
fn memory_attr(v: inkwell::llvm_sys::prelude::LLVMValueRef, call: bool) -> Option<u64> {
    const FUNCTION_INDEX: u32 = u32::MAX; // LLVMAttributeFunctionIndex
    let name = "memory";
    // SAFETY: `name` outlives the call; LLVM reads `len` bytes.
    let kind = unsafe { LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len()) };
    if kind == 0 {
        return None;
    }
    // SAFETY: `v` is a live call (when `call`) or function.
    let a = unsafe {
        if call {
            LLVMGetCallSiteEnumAttribute(v, FUNCTION_INDEX, kind)
        } else {
            LLVMGetEnumAttributeAtIndex(v, FUNCTION_INDEX, kind)
        }
    };
    // SAFETY: a non-null attribute reference.
    (!a.is_null()).then(|| unsafe { LLVMGetEnumAttributeValue(a) })
}

/// Whether a `call` instruction neither reads nor writes memory the loop can
/// see (see the module doc). Not for `invoke` (which may unwind).
pub fn is_pure_call(call: InstructionValue<'_>) -> bool {
    if call.get_opcode() != InstructionOpcode::Call {
        return false;
    }
    let v = call.as_value_ref();
    if memory_attr(v, true) == Some(0) {
        return true;
    }
    // SAFETY: live call instruction.
    let callee = unsafe { LLVMGetCalledValue(v) };
    // SAFETY: live value.
    if callee.is_null() || unsafe { LLVMIsAFunction(callee) }.is_null() {
        return false;
    }
    if memory_attr(callee, false) == Some(0) {
        return true;
    }
    let Some(name) = ir::callee_name(call) else {
        return false;
    };
    if ir::is_pure_intrinsic(&name) {
        return true;
    }
    // SAFETY: live function.
    if !is_libm(&name) || unsafe { LLVMIsDeclaration(callee) } == 0 {
        return false;
    }
    // SAFETY: a function's parent module is live; the name is NUL-terminated.
    let reads_errno = unsafe {
        let m = LLVMGetGlobalParent(callee);
        !m.is_null() && !LLVMGetNamedFunction(m, c"__errno_location".as_ptr()).is_null()
    };
    !reads_errno
}

/// The callee's name as LLVM spells it, for messages (`None`: indirect).
pub fn callee(call: InstructionValue<'_>) -> Option<String> {
    // SAFETY: live call instruction; name pointer valid for `len` bytes.
    unsafe {
        let c = LLVMGetCalledValue(call.as_value_ref());
        if c.is_null() || LLVMIsAFunction(c).is_null() {
            return None;
        }
        let mut len = 0usize;
        let p = LLVMGetValueName2(c, &mut len);
        if p.is_null() {
            return None;
        }
        Some(String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len)).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libm_names() {
        for n in ["sqrt", "sqrtf", "sqrtl", "exp", "fabs", "powf", "atan2l"] {
            assert!(is_libm(n), "{n}");
        }
        for n in [
            "lgamma", "frexp", "modf", "sincos", "rand", "printf", "sqrtx", "s", "",
        ] {
            assert!(!is_libm(n), "{n}");
        }
    }

    fn calls(ir: &str) -> Vec<(String, bool)> {
        let ctx = inkwell::context::Context::create();
        let m = crate::parse_ir(&ctx, ir, "t.ll").unwrap();
        let f = m.get_function("f").unwrap();
        let mut out = Vec::new();
        for b in f.get_basic_blocks() {
            let mut i = b.get_first_instruction();
            while let Some(x) = i {
                if x.get_opcode() == InstructionOpcode::Call {
                    out.push((callee(x).unwrap_or_default(), is_pure_call(x)));
                }
                i = x.get_next_instruction();
            }
        }
        out
    }

    const DECLS: &str = "
declare double @sqrt(double) #0
declare double @llvm.fabs.f64(double)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare double @mine(double)
declare double @konst(double) #1
declare double @lgamma(double) #0
attributes #0 = { nounwind memory(write) }
attributes #1 = { nounwind memory(none) }
";

    #[test]
    fn pure_and_impure_calls() {
        let ir = format!(
            "define void @f(ptr %p, double %x) {{
  %a = call double @sqrt(double %x)
  %b = call double @llvm.fabs.f64(double %x)
  call void @llvm.memset.p0.i64(ptr %p, i8 0, i64 8, i1 false)
  %c = call double @mine(double %x)
  %d = call double @konst(double %x)
  %e = call double @mine(double %x) #1
  %g = call double @lgamma(double %x)
  ret void
}}
{DECLS}"
        );
        let got = calls(&ir);
        let want = [
            ("sqrt", true),
            ("llvm.fabs.f64", true),
            ("llvm.memset.p0.i64", false),
            ("mine", false),
            ("konst", true),
            ("mine", true),
            ("lgamma", false),
        ];
        assert_eq!(got.len(), want.len());
        for ((n, p), (wn, wp)) in got.iter().zip(want) {
            assert_eq!((n.as_str(), *p), (wn, wp));
        }
    }

    #[test]
    fn errno_read_in_the_module_keeps_libm_calls_impure() {
        let ir = format!(
            "define void @f(ptr %p, double %x) {{
  %a = call double @sqrt(double %x)
  %e = call ptr @__errno_location()
  ret void
}}
declare ptr @__errno_location() #1
{DECLS}"
        );
        assert_eq!(calls(&ir)[0], ("sqrt".to_string(), false));
    }

    #[test]
    fn a_defined_function_named_like_libm_is_not_libm() {
        let ir = "define double @sqrt(double %x) {
  store double %x, ptr @g
  ret double %x
}
@g = global double 0.0
define void @f(double %x) {
  %a = call double @sqrt(double %x)
  ret void
}";
        assert_eq!(calls(ir)[0], ("sqrt".to_string(), false));
    }
}
