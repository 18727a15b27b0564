//! Safe, panic-free helpers over inkwell's instruction API.
//!
//! inkwell's `get_operand` builds a `BasicValueEnum`, which aborts on operands
//! that are not first-class values (metadata, tokens, labels). The analysis
//! reads arbitrary user IR, so operands are read here through `llvm-sys` after
//! checking their type kind.

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::core::{
    LLVMConstIntGetSExtValue, LLVMGetNumOperands, LLVMGetOperand, LLVMGetTypeKind, LLVMIsAArgument,
    LLVMIsAConstantInt, LLVMIsAFunction, LLVMIsAGlobalVariable, LLVMIsAInstruction, LLVMTypeOf,
    LLVMValueAsBasicBlock, LLVMValueIsBasicBlock,
};
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::llvm_sys::LLVMTypeKind;
use inkwell::values::{AsValueRef, BasicValueEnum, InstructionOpcode, InstructionValue};

/// Identity of an LLVM value inside one module (its address), usable as a map key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueKey(pub usize);

impl ValueKey {
    /// The key of any inkwell value.
    pub fn of<V: AsValueRef>(v: &V) -> ValueKey {
        ValueKey(v.as_value_ref() as usize)
    }
}

/// One operand of an instruction.
#[derive(Debug, Clone, Copy)]
pub enum Op<'ctx> {
    /// A first-class value.
    Value(BasicValueEnum<'ctx>),
    /// A basic block (branch targets, phi blocks).
    Block(BasicBlock<'ctx>),
    /// Anything else (metadata, tokens, functions as callees of odd types).
    Other,
}

fn is_basic_type(v: LLVMValueRef) -> bool {
    // SAFETY: `v` is a live value of the module being analysed.
    let kind = unsafe { LLVMGetTypeKind(LLVMTypeOf(v)) };
    matches!(
        kind,
        LLVMTypeKind::LLVMFloatTypeKind
            | LLVMTypeKind::LLVMFP128TypeKind
            | LLVMTypeKind::LLVMDoubleTypeKind
            | LLVMTypeKind::LLVMHalfTypeKind
            | LLVMTypeKind::LLVMBFloatTypeKind
            | LLVMTypeKind::LLVMX86_FP80TypeKind
            | LLVMTypeKind::LLVMPPC_FP128TypeKind
            | LLVMTypeKind::LLVMIntegerTypeKind
            | LLVMTypeKind::LLVMStructTypeKind
            | LLVMTypeKind::LLVMPointerTypeKind
            | LLVMTypeKind::LLVMArrayTypeKind
            | LLVMTypeKind::LLVMVectorTypeKind
    )
}

/// Converts a raw value to a `BasicValueEnum` if it is first-class.
pub(crate) fn basic_value<'ctx>(v: LLVMValueRef) -> Option<BasicValueEnum<'ctx>> {
    if v.is_null() || !is_basic_type(v) {
        return None;
    }
    // SAFETY: checked non-null and of a basic type kind.
    Some(unsafe { BasicValueEnum::new(v) })
}

/// Number of operands.
pub fn num_operands(inst: InstructionValue<'_>) -> u32 {
    // SAFETY: live instruction.
    let n = unsafe { LLVMGetNumOperands(inst.as_value_ref()) };
    n.max(0) as u32
}

/// The `i`-th operand, never panicking.
pub fn operand<'ctx>(inst: InstructionValue<'ctx>, i: u32) -> Op<'ctx> {
    if i >= num_operands(inst) {
        return Op::Other;
    }
    // SAFETY: index checked against the operand count.
    let v = unsafe { LLVMGetOperand(inst.as_value_ref(), i) };
    if v.is_null() {
        return Op::Other;
    }
    // SAFETY: `v` is a live operand.
    if unsafe { LLVMValueIsBasicBlock(v) } != 0 {
        // SAFETY: checked it is a basic block.
        let bb = unsafe { BasicBlock::new(LLVMValueAsBasicBlock(v)) };
        return bb.map(Op::Block).unwrap_or(Op::Other);
    }
    basic_value(v).map(Op::Value).unwrap_or(Op::Other)
}

/// The `i`-th operand if it is a first-class value.
pub fn value_operand<'ctx>(inst: InstructionValue<'ctx>, i: u32) -> Option<BasicValueEnum<'ctx>> {
    match operand(inst, i) {
        Op::Value(v) => Some(v),
        _ => None,
    }
}

/// All first-class value operands.
pub fn value_operands<'ctx>(inst: InstructionValue<'ctx>) -> Vec<BasicValueEnum<'ctx>> {
    (0..num_operands(inst))
        .filter_map(|i| value_operand(inst, i))
        .collect()
}

/// Successor blocks of a terminator.
pub fn successors<'ctx>(term: InstructionValue<'ctx>) -> Vec<BasicBlock<'ctx>> {
    let mut out = Vec::new();
    for i in 0..num_operands(term) {
        if let Op::Block(b) = operand(term, i) {
            if !out.contains(&b) {
                out.push(b);
            }
        }
    }
    // LLVM stores `br i1 c, T, F` operands as [c, F, T]; keep T first.
    if term.get_opcode() == InstructionOpcode::Br && out.len() == 2 {
        out.reverse();
    }
    out
}

/// For `br i1 %c, label %T, label %F`: `(c, T, F)`.
pub fn cond_branch<'ctx>(
    term: InstructionValue<'ctx>,
) -> Option<(BasicValueEnum<'ctx>, BasicBlock<'ctx>, BasicBlock<'ctx>)> {
    if term.get_opcode() != InstructionOpcode::Br || num_operands(term) != 3 {
        return None;
    }
    let c = value_operand(term, 0)?;
    let f = match operand(term, 1) {
        Op::Block(b) => b,
        _ => return None,
    };
    let t = match operand(term, 2) {
        Op::Block(b) => b,
        _ => return None,
    };
    Some((c, t, f))
}

/// The value as an instruction, if it is one.
pub fn as_instruction<'ctx>(v: BasicValueEnum<'ctx>) -> Option<InstructionValue<'ctx>> {
    // SAFETY: live value.
    if unsafe { LLVMIsAInstruction(v.as_value_ref()) }.is_null() {
        None
    } else {
        // SAFETY: checked that it is an instruction.
        Some(unsafe { InstructionValue::new(v.as_value_ref()) })
    }
}

/// The value of an integer constant (sign-extended), if `v` is one.
pub fn const_int(v: BasicValueEnum<'_>) -> Option<i64> {
    let r = v.as_value_ref();
    // SAFETY: live value; only read when it is a ConstantInt.
    unsafe {
        if LLVMIsAConstantInt(r).is_null() {
            return None;
        }
        let bits = match v {
            BasicValueEnum::IntValue(iv) => iv.get_type().get_bit_width(),
            _ => return None,
        };
        if bits > 64 {
            return None;
        }
        Some(LLVMConstIntGetSExtValue(r))
    }
}

/// Whether `v` is a function argument.
pub fn is_argument(v: BasicValueEnum<'_>) -> bool {
    // SAFETY: live value.
    !unsafe { LLVMIsAArgument(v.as_value_ref()) }.is_null()
}

/// Whether `v` is a global variable.
pub fn is_global(v: BasicValueEnum<'_>) -> bool {
    // SAFETY: live value.
    !unsafe { LLVMIsAGlobalVariable(v.as_value_ref()) }.is_null()
}

/// Whether `v` is a function.
pub fn is_function(v: BasicValueEnum<'_>) -> bool {
    // SAFETY: live value.
    !unsafe { LLVMIsAFunction(v.as_value_ref()) }.is_null()
}

/// The source-level name of a value, or `None` when it is unnamed.
pub fn name_of(v: BasicValueEnum<'_>) -> Option<String> {
    let n = v.get_name().to_string_lossy().into_owned();
    if n.is_empty() {
        None
    } else {
        Some(n)
    }
}

/// The name of a basic block (or `bbN` given its index when unnamed).
pub fn block_name(b: BasicBlock<'_>, index: usize) -> String {
    let n = b.get_name().to_string_lossy().into_owned();
    if n.is_empty() {
        format!("bb{index}")
    } else {
        n
    }
}

/// The value an instruction produces, if first-class.
pub fn basic_value_of_inst<'ctx>(i: InstructionValue<'ctx>) -> Option<BasicValueEnum<'ctx>> {
    basic_value(i.as_value_ref())
}

/// Instructions using a value.
pub fn users<'ctx, V: AsValueRef>(v: &V) -> Vec<InstructionValue<'ctx>> {
    use inkwell::llvm_sys::core::{LLVMGetFirstUse, LLVMGetNextUse, LLVMGetUser};
    let mut out = Vec::new();
    // SAFETY: walking the use list of a live value; users are checked to be
    // instructions before being wrapped.
    unsafe {
        let mut u = LLVMGetFirstUse(v.as_value_ref());
        while !u.is_null() {
            let user = LLVMGetUser(u);
            if !user.is_null() && !LLVMIsAInstruction(user).is_null() {
                out.push(InstructionValue::new(user));
            }
            u = LLVMGetNextUse(u);
        }
    }
    out
}

/// The name of a called function (`None` for indirect calls).
pub fn callee_name(call: InstructionValue<'_>) -> Option<String> {
    let n = num_operands(call);
    if n == 0 {
        return None;
    }
    // The callee is the last operand of a call.
    // SAFETY: index < operand count.
    let c = unsafe { LLVMGetOperand(call.as_value_ref(), n - 1) };
    // SAFETY: live value.
    if c.is_null() || unsafe { LLVMIsAFunction(c) }.is_null() {
        return None;
    }
    let mut len = 0usize;
    // SAFETY: live function value; LLVM returns a pointer to its name and length.
    let p = unsafe { inkwell::llvm_sys::core::LLVMGetValueName2(c, &mut len) };
    if p.is_null() {
        return None;
    }
    // SAFETY: LLVM guarantees `len` bytes at `p`.
    let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len) };
    Some(String::from_utf8_lossy(bytes).into_owned())
}

/// Whether a call's callee (its last operand) is an inline-assembly block.
pub fn calls_inline_asm(call: InstructionValue<'_>) -> bool {
    let n = num_operands(call);
    if n == 0 {
        return false;
    }
    // SAFETY: index < operand count; live values.
    let c = unsafe { LLVMGetOperand(call.as_value_ref(), n - 1) };
    !c.is_null() && !unsafe { inkwell::llvm_sys::core::LLVMIsAInlineAsm(c) }.is_null()
}

/// Whether a call is to an intrinsic that neither reads nor writes user memory.
pub fn is_pure_intrinsic(name: &str) -> bool {
    if !name.starts_with("llvm.") {
        return false;
    }
    const MEM: [&str; 10] = [
        "llvm.memcpy",
        "llvm.memmove",
        "llvm.memset",
        "llvm.masked",
        "llvm.prefetch",
        "llvm.gather",
        "llvm.scatter",
        "llvm.va_",
        "llvm.stacksave",
        "llvm.stackrestore",
    ];
    !MEM.iter().any(|m| name.starts_with(m))
}
