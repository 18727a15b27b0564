//! Pointers decomposed into a base object and a byte offset: GEPs over
//! arrays, structs and vectors, and casts, are folded into the offset.

use inkwell::values::{BasicValueEnum, InstructionOpcode, InstructionValue};

use super::Evaluator;
use crate::expr::Poly;
use crate::ir;

/// A pointer decomposed into a base object and a byte offset.
#[derive(Debug, Clone)]
pub struct Address<'ctx> {
    /// The base pointer (after GEPs and casts are stripped).
    pub base: BasicValueEnum<'ctx>,
    /// Byte offset from the base.
    pub offset: Poly,
    /// Why the address is not analysable, if it is not (offset then meaningless).
    pub problem: Option<String>,
}

impl<'a, 'ctx> Evaluator<'a, 'ctx> {
    /// Decomposes a pointer into base + byte offset (GEPs over arrays, structs, casts).
    pub fn address(&mut self, p: BasicValueEnum<'ctx>) -> Address<'ctx> {
        let mut offset = Poly::zero();
        let mut cur = p;
        for _ in 0..64 {
            let Some(i) = ir::as_instruction(cur) else {
                return Address {
                    base: cur,
                    offset,
                    problem: None,
                };
            };
            match i.get_opcode() {
                InstructionOpcode::GetElementPtr => {
                    let Some(base) = ir::value_operand(i, 0) else {
                        return Address {
                            base: cur,
                            offset,
                            problem: Some("malformed getelementptr".into()),
                        };
                    };
                    match self.gep_offset(i) {
                        Ok(o) => match offset.add(&o) {
                            Ok(s) => offset = s,
                            Err(_) => {
                                return Address {
                                    base,
                                    offset,
                                    problem: Some("offset overflows i64".into()),
                                }
                            }
                        },
                        Err(r) => {
                            return Address {
                                base,
                                offset,
                                problem: Some(r),
                            }
                        }
                    }
                    cur = base;
                }
                InstructionOpcode::BitCast | InstructionOpcode::AddrSpaceCast => {
                    match ir::value_operand(i, 0) {
                        Some(b) => cur = b,
                        None => {
                            return Address {
                                base: cur,
                                offset,
                                problem: None,
                            }
                        }
                    }
                }
                InstructionOpcode::Phi => {
                    let in_header = i
                        .get_parent()
                        .and_then(|b| self.cfg.id(b))
                        .map(|b| self.forest.loops.iter().any(|l| l.header == b))
                        .unwrap_or(false);
                    let reason = if in_header {
                        "pointer-typed phi in a loop header (pointer induction variables are not supported)"
                    } else {
                        "pointer selected by a phi"
                    };
                    return Address {
                        base: cur,
                        offset,
                        problem: Some(reason.into()),
                    };
                }
                InstructionOpcode::Select => {
                    return Address {
                        base: cur,
                        offset,
                        problem: Some("pointer selected by a select".into()),
                    }
                }
                InstructionOpcode::IntToPtr => {
                    return Address {
                        base: cur,
                        offset,
                        problem: Some("pointer made from an integer (inttoptr)".into()),
                    }
                }
                _ => {
                    return Address {
                        base: cur,
                        offset,
                        problem: None,
                    }
                }
            }
        }
        Address {
            base: cur,
            offset,
            problem: Some("address chain too long".into()),
        }
    }

    fn gep_offset(&mut self, gep: InstructionValue<'ctx>) -> Result<Poly, String> {
        use inkwell::types::BasicTypeEnum;
        let src = gep
            .get_gep_source_element_type()
            .map_err(|_| "getelementptr without a source element type".to_string())?;
        let n = ir::num_operands(gep);
        let mut off = Poly::zero();
        let mut ty: BasicTypeEnum<'ctx> = src;
        for k in 1..n {
            let idx = ir::value_operand(gep, k).ok_or("non-value getelementptr index")?;
            if k == 1 {
                let sz = self.td.get_abi_size(&ty) as i64;
                let e = self.eval(idx);
                off = off
                    .add(&e.scale(sz).map_err(|_| "overflow")?)
                    .map_err(|_| "overflow")?;
                continue;
            }
            match ty {
                BasicTypeEnum::ArrayType(at) => {
                    let et = at.get_element_type();
                    let sz = self.td.get_abi_size(&et) as i64;
                    let e = self.eval(idx);
                    off = off
                        .add(&e.scale(sz).map_err(|_| "overflow")?)
                        .map_err(|_| "overflow")?;
                    ty = et;
                }
                BasicTypeEnum::StructType(st) => {
                    let fi = ir::const_int(idx).ok_or("non-constant struct field index")?;
                    let fo = self
                        .td
                        .offset_of_element(&st, fi as u32)
                        .ok_or("struct field index out of range")?;
                    off = off
                        .add(&Poly::constant(fo as i64))
                        .map_err(|_| "overflow")?;
                    ty = st
                        .get_field_type_at_index(fi as u32)
                        .ok_or("bad struct field")?;
                }
                BasicTypeEnum::VectorType(vt) => {
                    let et = vt.get_element_type();
                    let sz = self.td.get_abi_size(&et) as i64;
                    let e = self.eval(idx);
                    off = off
                        .add(&e.scale(sz).map_err(|_| "overflow")?)
                        .map_err(|_| "overflow")?;
                    ty = et;
                }
                _ => return Err("getelementptr steps into a scalar type".into()),
            }
        }
        Ok(off)
    }
}
