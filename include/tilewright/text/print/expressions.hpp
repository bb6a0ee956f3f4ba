#pragma once
// Expressions (§4): precedence-driven parentheses (§4.3), typed constants where Python would
// otherwise fold or retype them (§4.1), and the unary forms.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tilewright/text/print/printer_class.hpp"

namespace tilewright::text::printer_detail {

// ---- precedence (§4.3) -------------------------------------------------------------------
enum Prec : int {
  kOr = 1,
  kXor = 2,
  kAnd = 3,
  kNot = 4,
  kCompare = 5,
  kBitOr = 6,
  kBitXor = 7,
  kBitAnd = 8,
  kShift = 9,
  kAdd = 10,
  kMul = 11,
  kUnary = 12,
  kPow = 13,
  kAtom = 14
};

inline int binary_prec(ir::BinaryOp op) noexcept {
  using B = ir::BinaryOp;
  switch (op) {
    case B::Add:
    case B::Sub:
      return kAdd;
    case B::Mul:
    case B::FloorDiv:
    case B::FloorMod:
    case B::FloatDiv:
      return kMul;
    case B::Pow:
      return kPow;
    case B::Eq:
    case B::Ne:
    case B::Lt:
    case B::Le:
    case B::Gt:
    case B::Ge:
      return kCompare;
    case B::And:
      return kAnd;
    case B::Or:
      return kOr;
    case B::Xor:
      return kXor;
    case B::BitAnd:
      return kBitAnd;
    case B::BitOr:
      return kBitOr;
    case B::BitXor:
      return kBitXor;
    case B::Shl:
    case B::Shr:
      return kShift;
    case B::Min:
    case B::Max:
      return kAtom;
  }
  return kAtom;
}

inline std::string_view binary_token(ir::BinaryOp op) noexcept {
  using B = ir::BinaryOp;
  switch (op) {
    case B::Add:
      return " + ";
    case B::Sub:
      return " - ";
    case B::Mul:
      return " * ";
    case B::FloorDiv:
      return " // ";
    case B::FloorMod:
      return " % ";
    case B::FloatDiv:
      return " / ";
    case B::Pow:
      return " ** ";
    case B::Eq:
      return " == ";
    case B::Ne:
      return " != ";
    case B::Lt:
      return " < ";
    case B::Le:
      return " <= ";
    case B::Gt:
      return " > ";
    case B::Ge:
      return " >= ";
    case B::And:
      return " and ";
    case B::Or:
      return " or ";
    case B::Xor:
      return " xor ";
    case B::BitAnd:
      return " & ";
    case B::BitOr:
      return " | ";
    case B::BitXor:
      return " ^ ";
    case B::Shl:
      return " << ";
    case B::Shr:
      return " >> ";
    case B::Min:
      return "pl.min";
    case B::Max:
      return "pl.max";
  }
  return " ? ";
}

inline int expr_prec(const Expr& e) noexcept {
  if (auto* b = ir::as<ir::Binary>(e)) return binary_prec(b->op);
  if (auto* u = ir::as<ir::Unary>(e)) {
    switch (u->op) {
      case ir::UnaryOp::Neg:
      case ir::UnaryOp::BitNot:
        return kUnary;
      case ir::UnaryOp::Not:
        return kNot;
      case ir::UnaryOp::Abs:
      case ir::UnaryOp::Cast:
        return kAtom;
    }
  }
  return kAtom;
}

inline bool Printer::all_const_tree(const Expr& e) {
  if (ir::as<ir::ConstInt>(e)) return true;
  auto* b = ir::as<ir::Binary>(e);
  if (!b) return false;
  if (auto it = const_tree_memo.find(e.get()); it != const_tree_memo.end()) return it->second;
  bool r = all_const_tree(b->lhs) && all_const_tree(b->rhs);
  const_tree_memo.emplace(e.get(), r);
  return r;
}

inline void Printer::operand(const Expr& e, int parent, bool right, bool parent_is_pow,
                             bool typed) {
  int p = expr_prec(e);
  // A comparison under a comparison always gets parentheses: `a < b == c` would read back
  // as a chained comparison, which no reader accepts (upstream prints it bare, §4.3).
  bool parens = p < parent || (p == parent && (parent_is_pow ? !right : right)) ||
                (p == kCompare && parent == kCompare);
  if (parens) out += '(';
  expr(e, typed);
  if (parens) out += ')';
}

inline void Printer::expr_list(const std::vector<Expr>& es, bool typed) {
  for (std::size_t i = 0; i < es.size(); ++i) {
    if (i) out += ", ";
    expr(es[i], typed);
  }
}

inline void Printer::expr(const Expr& e, bool typed) {
  if (!e) {
    out += "None";
    return;
  }
  switch (e->v.index()) {
    case 0:
    case 1:
      var_name(e);
      return;
    case 2:
      out += ir::name_hint(e);
      return;  // a MemRef used as a value (§4.2)
    case 3: {
      auto dt = scalar_dtype(e->type).value_or(ir::DataType::INDEX);
      const_int(std::get<ir::ConstInt>(e->v).value, dt, typed);
      return;
    }
    case 4: {
      double v = std::get<ir::ConstFloat>(e->v).value;
      auto dt = scalar_dtype(e->type).value_or(ir::DataType::FP32);
      if (dt == ir::DataType::FP32) {
        append_float(out, v);
      } else {
        out += "pl.const(";
        append_float(out, v);
        out += ", ";
        dtype(dt);
        out += ')';
      }
      return;
    }
    case 5:
      out += std::get<ir::ConstBool>(e->v).value ? "True" : "False";
      return;
    case 6:
      binary(e, std::get<ir::Binary>(e->v), typed);
      return;
    case 7:
      unary(e, std::get<ir::Unary>(e->v), typed);
      return;
    case 8:
      call(std::get<ir::Call>(e->v));
      return;
    case 9:
      out += '[';
      expr_list(std::get<ir::MakeTuple>(e->v).elements, typed);
      out += ']';
      return;
    case 10: {
      auto& g = std::get<ir::TupleGetItem>(e->v);
      operand(g.tuple, kAtom, false, false, typed);
      out += '[';
      append_int(out, g.index);
      out += ']';
      return;
    }
    default:
      return;
  }
}

inline void Printer::binary(const Expr& e, const ir::Binary& b, bool typed) {
  if (!typed && all_const_tree(e)) typed = true;
  if (b.op == ir::BinaryOp::Min || b.op == ir::BinaryOp::Max) {
    out += binary_token(b.op);
    out += '(';
    expr(b.lhs, typed);
    out += ", ";
    expr(b.rhs, typed);
    out += ')';
    return;
  }
  int p = binary_prec(b.op);
  bool pow = b.op == ir::BinaryOp::Pow;
  operand(b.lhs, p, false, pow, typed);
  out += binary_token(b.op);
  operand(b.rhs, p, true, pow, typed);
}

inline void Printer::unary(const Expr& e, const ir::Unary& u, bool typed) {
  switch (u.op) {
    case ir::UnaryOp::Neg:
    case ir::UnaryOp::BitNot:
    case ir::UnaryOp::Not: {
      out += u.op == ir::UnaryOp::Neg ? "-" : u.op == ir::UnaryOp::BitNot ? "~" : "not ";
      int p = u.op == ir::UnaryOp::Not ? kNot : kUnary;
      bool parens = expr_prec(u.operand) < p;
      if (parens) out += '(';
      expr(u.operand, typed);
      if (parens) out += ')';
      return;
    }
    case ir::UnaryOp::Abs:
      out += "abs(";
      expr(u.operand, typed);
      out += ')';
      return;
    case ir::UnaryOp::Cast:
      out += "pl.cast(";
      expr(u.operand, typed);
      out += ", ";
      dtype(scalar_dtype(e->type).value_or(ir::DataType::INDEX));
      out += ')';
      return;
  }
}

}  // namespace tilewright::text::printer_detail
