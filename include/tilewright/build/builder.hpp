#pragma once
// Building programs in C++: what a kernel generator writes instead of pl text.
//
//   build::ProgramBuilder program("Scale");
//   auto& f = program.function("scale", ir::FunctionType::InCore);
//   auto x = f.param("x", build::tensor({64, 64}, ir::DataType::FP16));
//   auto out = f.param("out_0", build::tensor({64, 64}, ir::DataType::FP16), ir::ParamDirection::Out);
//   auto t = f.let("t", "tile.load", {x, build::ints({0, 0}), build::ints({64, 64}), build::ints({64, 64})},
//                  {{"target_memory", ir::MemorySpace::Vec}});
//   auto s = f.let("s", "tile.muls", {t, build::f32(0.5)});
//   f.ret({f.let("out_1", "tile.store", {s, build::ints({0, 0}), out})});
//   ir::Program p = program.finish();
//
// Every call goes through the op registry: arity, kwargs and operand types are checked and the
// result type deduced exactly as for parsed text, so a builder mistake is the same diagnostic a
// text mistake would be. Loops and branches take the body as a function of a nested Block.
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilewright/ir/call_result.hpp"
#include "tilewright/ir/diagnostic.hpp"
#include "tilewright/ir/function.hpp"
#include "tilewright/ops/catalog.hpp"
#include "tilewright/ops/create.hpp"

namespace tilewright::build {

// ---- values ----------------------------------------------------------------------------------

// An extent or index: a number or a symbolic expression.
struct dim {
  ir::Expr expr;
  dim(std::int64_t v) : expr(ir::make_int(v)) {}  // NOLINT: implicit by design
  dim(int v) : expr(ir::make_int(v)) {}           // NOLINT
  dim(ir::Expr e) : expr(std::move(e)) {}         // NOLINT
};

inline std::vector<ir::Expr> exprs(std::initializer_list<dim> dims) {
  std::vector<ir::Expr> out;
  out.reserve(dims.size());
  for (const auto& d : dims) out.push_back(d.expr);
  return out;
}

inline ir::Expr index(std::int64_t v) { return ir::make_int(v); }
inline ir::Expr f32(double v) { return ir::make_float(v, ir::DataType::FP32); }
inline ir::Expr boolean(bool v) { return ir::make_bool(v); }
// `[0, 0]`-style operands: offsets, shapes.
inline ir::Expr ints(std::initializer_list<dim> dims) { return ir::make_tuple(exprs(dims)); }

// ---- types -----------------------------------------------------------------------------------

inline ir::Type scalar(ir::DataType dtype) { return ir::scalar_type(dtype); }

inline ir::Type tensor(std::initializer_list<dim> shape, ir::DataType dtype) {
  return ir::make_tensor_type(exprs(shape), dtype);
}
// A tensor with a layout but no strides yet (MaterializeTensorStrides fills them in).
inline ir::Type tensor(std::initializer_list<dim> shape, ir::DataType dtype, ir::TensorLayout layout) {
  ir::TensorView view{};
  view.layout = layout;
  return ir::make_tensor_type(exprs(shape), dtype, view);
}

inline ir::Type tile(std::initializer_list<dim> shape, ir::DataType dtype, ir::MemorySpace memory) {
  return ir::make_tile_type(exprs(shape), dtype, std::nullopt, memory);
}

// ---- scalar arithmetic -----------------------------------------------------------------------

// Index arithmetic and comparisons for loop bounds and conditions. Operands must already agree
// in kind (both integer or both float); mixing is refused rather than silently converted.
inline ir::Expr binary(ir::BinaryOp op, const ir::Expr& a, const ir::Expr& b) {
  auto* ta = ir::as<ir::ScalarType>(a->type);
  auto* tb = ir::as<ir::ScalarType>(b->type);
  if (!ta || !tb)
    ir::throw_user_error("build::binary", "both operands must be scalars; tile and tensor arithmetic is an op "
                                           "call such as f.let(\"y\", \"tile.add\", {a, b})");
  if (ir::is_float(ta->dtype) != ir::is_float(tb->dtype))
    ir::throw_user_error("build::binary", "cannot mix " + std::string(ir::name_of(ta->dtype)) + " and " +
                         std::string(ir::name_of(tb->dtype)) + " operands; cast one side first");
  using B = ir::BinaryOp;
  bool predicate = op == B::Eq || op == B::Ne || op == B::Lt || op == B::Le || op == B::Gt || op == B::Ge ||
                   op == B::And || op == B::Or;
  ir::DataType result = ir::bit_width(tb->dtype) > ir::bit_width(ta->dtype) ? tb->dtype : ta->dtype;
  return ir::make_expr(ir::Binary{op, a, b}, ir::scalar_type(predicate ? ir::DataType::BOOL : result));
}

// ---- statements ------------------------------------------------------------------------------

class Block;
using BodyFn = std::function<void(Block&)>;

// Where a block's statements go and which ops calls resolve against.
class Block {
 public:
  explicit Block(const ops::Registry& registry = ops::builtin_registry()) : registry_(&registry) {}

  // `name = op(args, kwargs)`: the result Var, typed by the op's deduction.
  ir::Expr let(std::string name, std::string_view op, std::vector<ir::Expr> args, ir::Kwargs kwargs = {}) {
    return let(std::move(name), call(op, std::move(args), std::move(kwargs)));
  }
  // `name = value` for any expression (an alias, an arithmetic result, a call built elsewhere).
  ir::Expr let(std::string name, const ir::Expr& value) {
    ir::Expr var = ir::make_var(std::move(name), value->type);
    stmts_.push_back(ir::make_stmt(ir::Assign{var, value}));
    return var;
  }
  // A call used for its effect only.
  void eval(std::string_view op, std::vector<ir::Expr> args, ir::Kwargs kwargs = {}) {
    stmts_.push_back(ir::make_stmt(ir::Eval{call(op, std::move(args), std::move(kwargs))}));
  }
  // A call as a value, to nest inside another expression.
  [[nodiscard]] ir::Expr call(std::string_view op, std::vector<ir::Expr> args, ir::Kwargs kwargs = {}) const {
    return ops::create_call(*registry_, op, std::move(args), std::move(kwargs), {});
  }

  // `for i, (carried...) in pl.range(start, stop, step, init_values=(init...))`. The body
  // receives the loop variable and the carried values and must end with `yield_`. Returns the
  // loop's results, one per carried value, named `<name>_out` unless `result_names` says.
  std::vector<ir::Expr> for_range(std::string loop_var, dim start, dim stop, dim step,
                                  std::vector<std::pair<std::string, ir::Expr>> carried,
                                  const std::function<void(Block&, const ir::Expr&, const std::vector<ir::Expr>&)>& body,
                                  ir::ForKind kind = ir::ForKind::range, std::vector<std::string> result_names = {}) {
    ir::Expr lv = ir::make_var(std::move(loop_var), ir::scalar_type(ir::DataType::INDEX));
    std::vector<ir::Expr> iter_args;
    for (auto& [name, init] : carried) iter_args.push_back(ir::make_iter_arg(name, init->type, init));
    Block inner(*registry_);
    body(inner, lv, iter_args);
    inner.check_yield(iter_args.size(), "for_range");
    std::vector<ir::Expr> results = result_vars(iter_args, result_names);
    stmts_.push_back(ir::make_stmt(ir::For{lv, start.expr, stop.expr, step.expr, iter_args, inner.body(), results,
                                           kind, {}}));
    return results;
  }
  // A loop without carried values.
  void for_range(std::string loop_var, dim start, dim stop, const std::function<void(Block&, const ir::Expr&)>& body,
                 ir::ForKind kind = ir::ForKind::range) {
    for_range(std::move(loop_var), std::move(start), std::move(stop), dim(1), {},
              [&](Block& b, const ir::Expr& i, const std::vector<ir::Expr>&) { body(b, i); }, kind);
  }

  // `if cond: … else: …`; with `result_names`, both branches yield that many values and the
  // branch results are returned (typed by the then-branch's yield).
  std::vector<ir::Expr> if_(const ir::Expr& cond, const BodyFn& then_body, const BodyFn& else_body = {},
                            std::vector<std::string> result_names = {}) {
    Block then_block(*registry_);
    then_body(then_block);
    Block else_block(*registry_);
    if (else_body) else_body(else_block);
    std::vector<ir::Expr> results;
    if (!result_names.empty()) {
      then_block.check_yield(result_names.size(), "if_");
      else_block.check_yield(result_names.size(), "if_");
      auto* y = ir::as<ir::Yield>(then_block.stmts_.back());
      for (std::size_t i = 0; i < result_names.size(); ++i)
        results.push_back(ir::make_var(result_names[i], y->values[i]->type));
    }
    ir::Stmt else_stmt = else_body ? else_block.body() : nullptr;
    stmts_.push_back(ir::make_stmt(ir::If{cond, then_block.body(), else_stmt, results}));
    return results;
  }

  void yield_(std::vector<ir::Expr> values) { stmts_.push_back(ir::make_stmt(ir::Yield{std::move(values)})); }
  void ret(std::vector<ir::Expr> values) { stmts_.push_back(ir::make_stmt(ir::Return{std::move(values)})); }
  void append(ir::Stmt s) { stmts_.push_back(std::move(s)); }

  // The statements so far, as one body.
  [[nodiscard]] ir::Stmt body() const { return ir::make_seq(stmts_); }

 protected:
  const ops::Registry& registry() const noexcept { return *registry_; }

 private:
  void check_yield(std::size_t n, std::string_view what) const {
    auto* y = stmts_.empty() ? nullptr : ir::as<ir::Yield>(stmts_.back());
    if (n == 0 && !y) return;
    if (!y || y->values.size() != n)
      ir::throw_user_error("build::" + std::string(what), "the body must end with yield_ of " + std::to_string(n) +
                           " value(s), one per carried value");
  }
  static std::vector<ir::Expr> result_vars(const std::vector<ir::Expr>& iter_args,
                                           const std::vector<std::string>& names) {
    std::vector<ir::Expr> out;
    for (std::size_t i = 0; i < iter_args.size(); ++i) {
      std::string name = i < names.size() ? names[i] : std::string(ir::name_hint(iter_args[i])) + "_out";
      out.push_back(ir::make_var(std::move(name), iter_args[i]->type));
    }
    return out;
  }

  const ops::Registry* registry_;
  std::vector<ir::Stmt> stmts_;
};

class FunctionBuilder : public Block {
 public:
  FunctionBuilder(std::string name, ir::FunctionType type, const ops::Registry& registry)
      : Block(registry) {
    node_.name = std::move(name);
    node_.type = type;
    if (auto implied = ir::implied_placement(type)) {
      node_.level = implied->level;
      node_.role = implied->role;
    }
  }

  ir::Expr param(std::string name, ir::Type type, ir::ParamDirection direction = ir::ParamDirection::In) {
    ir::Expr var = ir::make_var(std::move(name), std::move(type));
    node_.params.push_back(ir::Param{var, direction});
    return var;
  }
  FunctionBuilder& returns(std::vector<ir::Type> types) {
    node_.return_types = std::move(types);
    return *this;
  }
  // `return values`; unless `returns` said otherwise, the return types are the values' types.
  void ret(std::vector<ir::Expr> values) {
    if (node_.return_types.empty())
      for (const auto& v : values) node_.return_types.push_back(v->type);
    Block::ret(std::move(values));
  }
  // A call of another function of the program, typed by what that function returns.
  ir::Expr call_function(const FunctionBuilder& callee, std::vector<ir::Expr> args) const {
    auto types = ir::returns_at_call(callee.node_.params, callee.node_.return_types, args);
    ir::Type type = types.size() == 1 ? types[0] : ir::make_type(ir::TupleType{std::move(types)});
    return ir::make_function_call(callee.node_.name, std::move(args), std::move(type));
  }

  [[nodiscard]] ir::Function finish() const {
    ir::FunctionNode f = node_;
    f.body = body();
    return ir::make_function(std::move(f));
  }

 private:
  ir::FunctionNode node_{};
};

class ProgramBuilder {
 public:
  explicit ProgramBuilder(std::string name, const ops::Registry& registry = ops::builtin_registry())
      : name_(std::move(name)), registry_(&registry) {}

  // The builder stays valid until the ProgramBuilder is destroyed.
  FunctionBuilder& function(std::string name, ir::FunctionType type) {
    functions_.push_back(std::make_unique<FunctionBuilder>(std::move(name), type, *registry_));
    return *functions_.back();
  }

  [[nodiscard]] ir::Program finish() const {
    std::vector<ir::Function> fs;
    for (const auto& f : functions_) fs.push_back(f->finish());
    return ir::make_program(name_, std::move(fs));
  }

 private:
  std::string name_;
  const ops::Registry* registry_;
  std::vector<std::unique_ptr<FunctionBuilder>> functions_;
};

}  // namespace tilewright::build
