#pragma once
// The Printer: its output buffer and per-function state, and one declaration per form it
// prints. The forms are defined by concept in the headers beside this one (named in each
// group below); text/printer.hpp includes them all.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tilewright/ir/function.hpp"
#include "tilewright/ops/registry.hpp"
#include "tilewright/text/print/names.hpp"
#include "tilewright/text/print/spelling.hpp"

namespace tilewright::text::printer_detail {

// How a trailing Yield prints: as the assignment to its parent's return vars, as the
// function's return, or bare.
struct YieldTarget {
  const std::vector<Expr>* return_vars = nullptr;
  bool function_top = false;
};

class Printer {
 public:
  std::string out;
  // Program-level names of free dimension Vars (§5.3).
  std::unordered_map<const ExprNode*, std::string> dyn_names;
  // Their printed names when the program declares them with `pl.dynamic`: no local may
  // take one.
  std::vector<std::string_view> declared_dims;
  // Set while printing a function inside a Program: enables `self.` on calls.
  bool in_program = false;
  // Per-function state.
  std::unordered_map<const ExprNode*, std::string> names;
  const std::unordered_set<const ExprNode*>* body_defs = nullptr;
  bool in_signature = false;
  int split_aiv_depth = 0;
  // The call on the right of the Assign being printed, and the name it is assigned to.
  const ir::Call* assigned_call = nullptr;
  std::string_view assigned_name;

  void reset_function() {
    names.clear();
    type_texts.clear();
    body_defs = nullptr;
    in_signature = false;
    split_aiv_depth = 0;
  }

  // Builds the function's name map from its scan (§5.2), leaving out program-level dims.
  void bind_function(const FunctionScan& scan) {
    reset_function();
    std::vector<const ExprNode*> order;
    order.reserve(scan.params.size() + scan.defs.size() + scan.uses.size());
    std::unordered_set<const ExprNode*> seen;
    seen.reserve(order.capacity());
    auto add = [&](const ExprNode* v) {
      if (dyn_names.count(v)) return;
      if (seen.insert(v).second) order.push_back(v);
    };
    for (auto* v : scan.params) add(v);
    for (auto* v : scan.defs) add(v);
    for (auto* v : scan.uses) add(v);
    names.reserve(order.size());
    assign_names(order, names, declared_dims);
    for (auto* v : order)
      if (!scan.param_set.count(v) && !scan.def_set.count(v)) names[v] += "__FREE_VAR";
    body_defs = &scan.def_set;
  }

  void newline(int level) {
    if (!out.empty()) out += '\n';
    out.append(static_cast<std::size_t>(level) * 4, ' ');
  }

  std::string_view printed_name(const Expr& v) const {
    if (auto it = names.find(v.get()); it != names.end()) return it->second;
    if (auto it = dyn_names.find(v.get()); it != dyn_names.end()) return it->second;
    return ir::name_hint(v);
  }

  void var_name(const Expr& v) { out += printed_name(v); }

  void dtype(ir::DataType dt) {
    out += "pl.";
    out += enum_name(dt);
  }

  void const_int(std::int64_t v, ir::DataType dt, bool typed) {
    if (dt == ir::DataType::INDEX && !typed) {
      append_int(out, v);
      return;
    }
    out += "pl.const(";
    append_int(out, v);
    out += ", ";
    dtype(dt);
    out += ')';
  }

  enum class StrStyle { single_quoted, double_quoted };
  // Whether a binary tree has only ConstInt leaves (§4.1): Python would fold it on reparse,
  // so its leaves print typed. Memoized so that checking every Binary node stays linear.
  std::unordered_map<const ExprNode*, bool> const_tree_memo;
  std::unordered_map<std::uint32_t, std::string> callee_cache;
  // The text of each tensor, tile and tuple type printed in this function's body, by node: a
  // kernel's lines repeat a handful of (interned) types, and within a body a type's text
  // depends only on the type and the function's names.
  std::unordered_map<const ir::TypeNode*, std::string> type_texts;
  std::unordered_map<std::uint32_t, const ops::OpInfo*> row_cache;
  const ops::Registry* registry = nullptr;  // null: the built-in catalog

  // ---- types.hpp: annotations (§2)
  void dim(const Expr& e);
  void dims(const std::vector<Expr>& ds);
  void memref(const Expr& e);
  void tensor_view(const ir::TensorType& t);
  void tile_view(const ir::TileType& t);
  void type(const Type& t);
  void type_text(const Type& t);

  // ---- expressions.hpp: expressions (§4)
  bool all_const_tree(const Expr& e);
  void operand(const Expr& e, int parent, bool right, bool parent_is_pow, bool typed);
  void expr_list(const std::vector<Expr>& es, bool typed = false);
  void expr(const Expr& e, bool typed = false);
  void binary(const Expr& e, const ir::Binary& b, bool typed);
  void unary(const Expr& e, const ir::Unary& u, bool typed);

  // ---- calls.hpp: kwarg and attr values (§4.5, §4.6), op and function calls (§4.7)
  bool common_value(const ir::AttrValue& v, StrStyle strings);
  void kwarg_value(const ops::OpInfo* row, std::string_view key, const ir::AttrValue& v, StrStyle strings);
  void attrs_dict(const ir::Kwargs& attrs, bool function_call);
  const std::string& op_spelling(ir::OpId op);
  const ops::OpInfo* op_row(ir::OpId op);
  void call(const ir::Call& c);

  // ---- statements.hpp: statements and blocks (§3)
  void comments(const Stmt& s, int level);
  static bool is_suppressed_task_placeholder(const Stmt& s, const Stmt& next);
  void block(const Stmt& body, int level, YieldTarget target = {}, bool allow_empty = false);
  void seq_stmts(const ir::Seq& seq, int level, YieldTarget target);
  void values_after(std::string_view head, const std::vector<Expr>& vs);
  void yield(const ir::Yield& y, int level, YieldTarget target);
  void init_values(const std::vector<Expr>& iter_args);
  void target_tuple(const std::vector<Expr>& vars);
  void for_stmt(const ir::For& f, int level);
  void while_stmt(const ir::While& w, int level);
  void if_stmt(const ir::If& s, int level);
  void scope_value(std::string_view key, const ir::AttrValue& v);
  void scope_call(std::string_view head, const ir::Scope& s, std::string_view leading = {});
  void scope_stmt(const ir::Scope& s, int level, YieldTarget target);
  void statement(const Stmt& s, int level, YieldTarget target = {});

  // ---- functions.hpp: decorators, signatures, func_attr (§1.2–§1.5)
  void decorator(const ir::FunctionNode& f, int level);
  static bool is_split_none(const ir::AttrValue& v);
  void func_attr_prologue(const ir::FunctionNode& f, int level);
  void function(const ir::FunctionNode& f, const FunctionScan& scan, int level);
};

}  // namespace tilewright::text::printer_detail
