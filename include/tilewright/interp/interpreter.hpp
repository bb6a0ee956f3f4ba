#pragma once
// The reference interpreter: executes the functions of a Program on concrete values.
//
//   interp::Interpreter run(program, {.dims = {{"S", 37}}});
//   std::vector<interp::Value> results = run.call("kernel", {x, out});
//
// Statements run in order; loops, branches and calls follow the IR exactly (iter_args,
// yields, return_vars). Ops are looked up by id in a table built once (tile_ops.hpp,
// tensor_ops.hpp); an op without an entry stops the run with a RunError naming it.
//
// Not part of the umbrella header: it is meant for tools and tests, and nothing under
// passes/ may include it.
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tilewright/interp/numeric.hpp"
#include "tilewright/interp/value.hpp"
#include "tilewright/ir/function.hpp"
#include "tilewright/math/strides.hpp"

namespace tilewright::interp {

struct RunOptions {
  // Values of dynamic dimensions (`S = pl.dynamic("S")`) by name.
  std::map<std::string, std::int64_t, std::less<>> dims;
  // Statements a run may execute before it is stopped as endless.
  std::uint64_t step_budget = 50'000'000;
  // At most this many notes are kept; the count of the rest is still reported.
  std::size_t max_notes = 16;
};

// A tile type with its dims evaluated.
struct TileInfo {
  DataType dtype = DataType::FP32;
  Dims shape;
  Dims valid;
};

// How a tensor expression addresses its buffer: element (i0, …) is at Σ i_k * strides[k].
struct TensorAccess {
  DataType dtype = DataType::FP32;
  Dims shape;
  Dims strides;
  Dims valid;
  ir::PadValue pad = ir::PadValue::null;
  // One past the largest element offset this view reaches (0 for an empty tensor).
  [[nodiscard]] std::int64_t extent() const noexcept {
    std::int64_t last = 0;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] <= 0) return 0;
      std::int64_t reach = 0;
      if (__builtin_mul_overflow(shape[i] - 1, strides[i], &reach) || __builtin_add_overflow(last, reach, &last))
        return INT64_MAX;  // saturates: run_allocation refuses it
    }
    return last == INT64_MAX ? last : last + 1;
  }
};

// The largest magnitude of an index, extent or stride, and of the element offsets a tensor
// view reaches, that a run models. Kernels address far less; bounding it here keeps every
// `offset + index` and `index * stride` the ops compute inside 64 bits.
inline constexpr std::int64_t kMaxModelledIndex = std::int64_t{1} << 40;

inline std::int64_t modelled_index(std::int64_t v, const ir::Span& span) {
  if (v > kMaxModelledIndex || v < -kMaxModelledIndex)
    throw RunError(RunErrorKind::unsupported,
                   "an index or extent of " + std::to_string(v) + " is beyond what the interpreter models (2^40)",
                   span);
  return v;
}

inline void check_reach(const TensorAccess& a, const ir::Span& span) {
  for (std::int64_t s : a.strides)
    if (s < 0) throw RunError(RunErrorKind::unsupported, "a tensor view with a negative stride is not modelled", span);
  if (a.extent() > kMaxModelledIndex)
    throw RunError(RunErrorKind::unsupported,
                   "a tensor view reaching past element 2^40 is beyond what the interpreter models", span);
}

class Interpreter;

// One op call being executed: its arguments already evaluated.
struct OpCall {
  Interpreter& interp;
  const ir::Call& call;
  const ir::Expr& expr;
  std::vector<Value> args;
  std::string_view name;

  [[noreturn]] void fail(RunErrorKind kind, const std::string& message) const;
  [[noreturn]] void fail(const std::string& message) const { fail(RunErrorKind::invalid, message); }

  [[nodiscard]] bool has(std::size_t i) const noexcept { return i < args.size(); }
  [[nodiscard]] const Tile& tile(std::size_t i) const;
  [[nodiscard]] TilePtr tile_ptr(std::size_t i) const;
  [[nodiscard]] const TensorRef& tensor(std::size_t i) const;
  [[nodiscard]] const Scalar& scalar(std::size_t i) const;
  [[nodiscard]] std::int64_t index(std::size_t i) const;
  [[nodiscard]] Dims dims(std::size_t i) const;  // a tuple of integer scalars
  [[nodiscard]] TileInfo result_tile() const;
  [[nodiscard]] TensorAccess access(std::size_t i) const;  // through the argument's type
  [[nodiscard]] const ir::AttrValue* kwarg(std::string_view key) const noexcept {
    return ir::find_kwarg(call.kwargs, key);
  }
  template <class T>
  [[nodiscard]] std::optional<T> kw(std::string_view key) const noexcept {
    if (auto* v = ir::kwarg_as<T>(call.kwargs, key)) return *v;
    return std::nullopt;
  }
};

using OpHandler = Value (*)(OpCall&);

// The op table: name → handler. Filled by the op headers' register functions.
class OpTable {
 public:
  void add(std::string_view name, OpHandler h) {
    auto id = ir::intern_op(name).value;
    if (handlers_.size() <= id) handlers_.resize(id + 1, nullptr);
    handlers_[id] = h;
  }
  [[nodiscard]] OpHandler find(ir::OpId id) const noexcept {
    return id.value < handlers_.size() ? handlers_[id.value] : nullptr;
  }

 private:
  std::vector<OpHandler> handlers_;
};

inline const OpTable& builtin_op_table();  // tile_ops.hpp, included at the end

class Interpreter {
 public:
  explicit Interpreter(const ir::Program& program, RunOptions options = {},
                       const OpTable& ops = builtin_op_table())
      : program_(program), options_(std::move(options)), ops_(ops) {}

  // Runs `function` on `args` (one per parameter). Returns the function's return values.
  std::vector<Value> call(std::string_view function, std::vector<Value> args) {
    ir::Function f = ir::find_function(*program_, function);
    if (!f) throw RunError(RunErrorKind::invalid, "the program has no function '" + std::string(function) + "'");
    return call(*f, std::move(args), f->span);
  }

  [[nodiscard]] const std::vector<RunNote>& notes() const noexcept { return notes_; }
  [[nodiscard]] std::size_t note_count() const noexcept { return note_count_; }
  void note(std::string message, ir::Span span) {
    ++note_count_;
    if (notes_.size() < options_.max_notes) notes_.push_back({std::move(message), std::move(span)});
  }
  [[nodiscard]] const RunOptions& options() const noexcept { return options_; }
  [[nodiscard]] std::uint64_t steps() const noexcept { return steps_; }

  // ---- evaluation helpers the ops use ----------------------------------------------------

  Value eval(const ir::Expr& e);

  std::int64_t eval_index(const ir::Expr& e) {
    if (auto c = ir::const_int(e)) return modelled_index(*c, e->span);
    Value v = eval(e);
    const Scalar* s = v.scalar();
    if (!s) throw RunError(RunErrorKind::invalid, "a dimension or index is not a scalar", e->span);
    if (!s->defined) throw RunError(RunErrorKind::cannot_run, "a dimension or index reads an undefined value", e->span);
    return modelled_index(to_i64(s->value), e->span);
  }
  Dims eval_dims(const std::vector<ir::Expr>& dims) {
    Dims out;
    out.reserve(dims.size());
    for (const auto& d : dims) out.push_back(eval_index(d));
    return out;
  }

  TileInfo tile_info(const ir::Type& type, const ir::Span& span) {
    const auto* t = ir::as<ir::TileType>(type);
    if (!t) throw RunError(RunErrorKind::invalid, "expected a tile type", span);
    TileInfo out{t->dtype, eval_dims(t->shape), eval_dims(ir::valid_shape(*t))};
    if (out.valid.size() != out.shape.size())
      throw RunError(RunErrorKind::invalid, "a tile's valid_shape has another rank than its shape", span);
    for (std::size_t i = 0; i < out.shape.size(); ++i) {
      if (out.shape[i] < 0) throw RunError(RunErrorKind::cannot_run, "a tile dimension is negative", span);
      out.valid[i] = std::clamp<std::int64_t>(out.valid[i], 0, out.shape[i]);
    }
    return out;
  }

  TensorAccess tensor_access(const ir::Type& type, const ir::Span& span) {
    const auto* t = ir::as<ir::TensorType>(type);
    if (!t) throw RunError(RunErrorKind::invalid, "expected a tensor type", span);
    TensorAccess a;
    a.dtype = t->dtype;
    a.shape = eval_dims(t->shape);
    a.valid = eval_dims(ir::valid_shape(*t));
    if (t->view) a.pad = t->view->pad;
    if (t->view && !t->view->stride.empty()) {
      a.strides = eval_dims(t->view->stride);
      if (a.strides.size() != a.shape.size())
        throw RunError(RunErrorKind::invalid, "a tensor's stride has another rank than its shape", span);
      check_reach(a, span);
      return a;
    }
    ir::TensorLayout layout = t->view ? t->view->layout : ir::TensorLayout::ND;
    auto strides = math::logical_strides(a.shape, layout, ir::byte_width(t->dtype));
    if (!strides) {
      throw RunError(layout == ir::TensorLayout::NZ ? RunErrorKind::unsupported : RunErrorKind::invalid,
                     "a tensor of shape " + dims_string(a.shape) + " has no packed strides for layout " +
                         std::string(ir::name_of(t->view->layout)) +
                         (layout == ir::TensorLayout::NZ ? " (only the blocked rank-5 NZ form has strides)" : ""),
                     span);
    }
    a.strides.assign(strides->begin(), strides->end());
    check_reach(a, span);
    return a;
  }

  void count_step(const ir::Span& span) {
    if (++steps_ > options_.step_budget)
      throw RunError(RunErrorKind::cannot_run,
                     "the run exceeded its budget of " + std::to_string(options_.step_budget) +
                         " statements (an endless loop for these inputs?)",
                     span);
  }

 private:
  enum class Flow : std::uint8_t { normal, break_, continue_, return_ };

  struct Frame {
    std::unordered_map<const ir::ExprNode*, Value> values;
    std::vector<Value> yielded;
    bool has_yield = false;
    std::vector<Value> returned;
  };

  std::vector<Value> call(const ir::FunctionNode& f, std::vector<Value> args, const ir::Span& at) {
    if (args.size() != f.params.size())
      throw RunError(RunErrorKind::invalid,
                     "function '" + f.name + "' takes " + std::to_string(f.params.size()) + " arguments, got " +
                         std::to_string(args.size()),
                     at);
    if (frames_.size() >= 256)
      throw RunError(RunErrorKind::cannot_run, "calls nest deeper than 256 frames (recursion?)", at);
    frames_.emplace_back();
    struct Pop {
      std::vector<Frame>& f;
      ~Pop() { f.pop_back(); }
    } pop{frames_};
    for (std::size_t i = 0; i < args.size(); ++i) bind(f.params[i].var, std::move(args[i]));
    exec(f.body);
    return std::move(frames_.back().returned);
  }

  Frame& frame() { return frames_.back(); }

  void bind(const ir::Expr& var, Value v) {
    if (const Tile* t = v.tile(); t && var->type) v = retype(*t, *v.tile_ptr(), var->type, var->span);
    frame().values[var.get()] = std::move(v);
  }

  // A tile value bound to a Var takes the Var's declared type: the same elements, read
  // row-major into the declared shape, masked to the declared valid region.
  Value retype(const Tile& t, const TilePtr& ptr, const ir::Type& type, const ir::Span& span) {
    if (!ir::as<ir::TileType>(type)) return ptr;
    TileInfo info = tile_info(type, span);
    if (info.shape == t.shape && info.valid == t.valid && info.dtype == t.dtype) return ptr;
    if (element_count(info.shape) != element_count(t.shape))
      throw RunError(RunErrorKind::invalid,
                     "a value of shape " + dims_string(t.shape) + " is bound to a variable of shape " +
                         dims_string(info.shape),
                     span);
    auto out = std::make_shared<Tile>(t);
    out->shape = info.shape;
    out->valid = info.valid;
    if (info.dtype != t.dtype) {
      out->dtype = info.dtype;
      for (auto& x : out->data) x = store_rounded(x, info.dtype);
    }
    mask_to_valid(*out);
    return TilePtr(std::move(out));
  }

 public:
  // Clears the defined bit of every element outside the tile's valid region.
  static void mask_to_valid(Tile& t) {
    if (t.valid == t.shape) return;
    std::size_t n = t.rank();
    if (n == 0) return;
    Dims idx(n, 0);
    for (std::size_t lin = 0; lin < t.size(); ++lin) {
      bool inside = true;
      for (std::size_t k = 0; k < n && inside; ++k) inside = idx[k] < t.valid[k];
      if (!inside) {
        t.defined[lin] = 0;
        t.data[lin] = 0.0;
      }
      for (std::size_t k = n; k-- > 0;) {
        if (++idx[k] < t.shape[k]) break;
        idx[k] = 0;
      }
    }
  }

 private:
  Value lookup(const ir::Expr& e) {
    const ir::ExprNode* key = e.get();
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
      auto found = it->values.find(key);
      if (found != it->values.end()) return found->second;
      break;  // a function sees only its own frame
    }
    // A free Var: a dynamic dimension, given by name.
    std::string_view name = ir::name_hint(e);
    if (auto d = options_.dims.find(name); d != options_.dims.end()) {
      const auto* st = ir::as<ir::ScalarType>(e->type);
      return Scalar{st ? st->dtype : DataType::INDEX, static_cast<double>(d->second), true};
    }
    throw RunError(RunErrorKind::cannot_run,
                   "'" + std::string(name) + "' has no value here" +
                       (frames_.size() ? " (a dynamic dimension? give it with --dims=" + std::string(name) + "=N)" : ""),
                   e->span);
  }

  Value eval_call(const ir::Expr& e, const ir::Call& c) {
    std::vector<Value> args;
    args.reserve(c.args.size());
    for (const auto& a : c.args) args.push_back(eval(a));
    if (c.callee.is_function()) {
      ir::Function f = ir::find_function(*program_, c.callee.function);
      if (!f) throw RunError(RunErrorKind::invalid, "call of an unknown function '" + c.callee.function.str() + "'", e->span);
      auto results = call(*f, std::move(args), e->span);
      if (results.size() == 1) return std::move(results.front());
      if (results.empty()) return {};
      return make_tuple_value(std::move(results));
    }
    OpHandler h = ops_.find(c.callee.op);
    std::string_view name = ir::op_name(c.callee.op);
    if (!h)
      throw RunError(RunErrorKind::unsupported,
                     "the interpreter cannot run op '" + std::string(name) + "' (it is not modelled)", e->span);
    OpCall oc{*this, c, e, std::move(args), name};
    return h(oc);
  }

  Value eval_binary(const ir::Expr& e, const ir::Binary& b);
  Value eval_unary(const ir::Expr& e, const ir::Unary& u);

  Flow exec(const ir::Stmt& s);
  Flow exec_for(const ir::For& f, const ir::Span& span);
  Flow exec_while(const ir::While& w, const ir::Span& span);

  ir::Program program_;
  RunOptions options_;
  const OpTable& ops_;
  std::vector<Frame> frames_;
  std::vector<RunNote> notes_;
  std::size_t note_count_ = 0;
  std::uint64_t steps_ = 0;
};

// ---- expressions ---------------------------------------------------------------------------

inline DataType scalar_dtype(const ir::Expr& e) {
  const auto* s = ir::as<ir::ScalarType>(e->type);
  return s ? s->dtype : DataType::INDEX;
}

inline Value Interpreter::eval(const ir::Expr& e) {
  if (!e) return {};
  return ir::dispatch(e->v, ir::overloaded{
      [&](const ir::Var&) -> Value { return lookup(e); },
      [&](const ir::IterArg&) -> Value { return lookup(e); },
      [&](const ir::MemRef&) -> Value { return Opaque{"memref"}; },
      [&](const ir::ConstInt& c) -> Value {
        return Scalar{scalar_dtype(e), static_cast<double>(c.value), true};
      },
      [&](const ir::ConstFloat& c) -> Value {
        DataType dt = scalar_dtype(e);
        return Scalar{dt, store_rounded(c.value, dt), true};
      },
      [&](const ir::ConstBool& c) -> Value { return Scalar{DataType::BOOL, c.value ? 1.0 : 0.0, true}; },
      [&](const ir::Binary& b) -> Value { return eval_binary(e, b); },
      [&](const ir::Unary& u) -> Value { return eval_unary(e, u); },
      [&](const ir::Call& c) -> Value { return eval_call(e, c); },
      [&](const ir::MakeTuple& t) -> Value {
        std::vector<Value> out;
        out.reserve(t.elements.size());
        for (const auto& x : t.elements) out.push_back(eval(x));
        return make_tuple_value(std::move(out));
      },
      [&](const ir::TupleGetItem& g) -> Value {
        Value t = eval(g.tuple);
        const auto* elems = t.tuple();
        if (!elems || g.index < 0 || static_cast<std::size_t>(g.index) >= elems->size())
          throw RunError(RunErrorKind::invalid, "tuple index " + std::to_string(g.index) + " out of range", e->span);
        return (*elems)[static_cast<std::size_t>(g.index)];
      },
  });
}

namespace detail {
inline double floor_div(double a, double b) { return std::floor(a / b); }
inline double floor_mod(double a, double b) { return a - std::floor(a / b) * b; }
inline std::int64_t as_i64(double v) { return to_i64(v); }
}  // namespace detail

inline Value Interpreter::eval_binary(const ir::Expr& e, const ir::Binary& b) {
  Value lv = eval(b.lhs);
  Value rv = eval(b.rhs);
  const Scalar* l = lv.scalar();
  const Scalar* r = rv.scalar();
  if (!l || !r) throw RunError(RunErrorKind::invalid, "a scalar operator on a non-scalar operand", e->span);
  DataType dt = scalar_dtype(e);
  bool defined = l->defined && r->defined;
  double x = l->value, y = r->value, out = 0.0;
  bool integral = !ir::is_float(l->dtype) && !ir::is_float(r->dtype);
  using Op = ir::BinaryOp;
  switch (b.op) {
    case Op::Add: out = x + y; break;
    case Op::Sub: out = x - y; break;
    case Op::Mul: out = x * y; break;
    case Op::FloorDiv:
      if (y == 0) throw RunError(RunErrorKind::cannot_run, "integer division by zero", e->span);
      out = integral ? detail::floor_div(x, y) : std::floor(x / y);
      break;
    case Op::FloorMod:
      if (y == 0) throw RunError(RunErrorKind::cannot_run, "modulo by zero", e->span);
      out = detail::floor_mod(x, y);
      break;
    case Op::FloatDiv: out = x / y; break;
    case Op::Min: out = std::min(x, y); break;
    case Op::Max: out = std::max(x, y); break;
    case Op::Pow: out = std::pow(x, y); break;
    case Op::Eq: out = x == y; break;
    case Op::Ne: out = x != y; break;
    case Op::Lt: out = x < y; break;
    case Op::Le: out = x <= y; break;
    case Op::Gt: out = x > y; break;
    case Op::Ge: out = x >= y; break;
    case Op::And: out = (x != 0) && (y != 0); break;
    case Op::Or: out = (x != 0) || (y != 0); break;
    case Op::Xor: out = (x != 0) != (y != 0); break;
    case Op::BitAnd: out = static_cast<double>(detail::as_i64(x) & detail::as_i64(y)); break;
    case Op::BitOr: out = static_cast<double>(detail::as_i64(x) | detail::as_i64(y)); break;
    case Op::BitXor: out = static_cast<double>(detail::as_i64(x) ^ detail::as_i64(y)); break;
    case Op::Shl:
      out = (y < 0 || y >= 64) ? 0.0
                               : static_cast<double>(static_cast<std::int64_t>(
                                     static_cast<std::uint64_t>(detail::as_i64(x)) << detail::as_i64(y)));
      break;
    case Op::Shr: out = (y < 0 || y >= 64) ? 0.0 : static_cast<double>(detail::as_i64(x) >> detail::as_i64(y)); break;
  }
  return Scalar{dt, store_rounded(out, dt), defined};
}

inline Value Interpreter::eval_unary(const ir::Expr& e, const ir::Unary& u) {
  Value v = eval(u.operand);
  const Scalar* s = v.scalar();
  if (!s) throw RunError(RunErrorKind::invalid, "a scalar operator on a non-scalar operand", e->span);
  DataType dt = scalar_dtype(e);
  double x = s->value, out = 0.0;
  switch (u.op) {
    case ir::UnaryOp::Neg: out = -x; break;
    case ir::UnaryOp::Not: out = x == 0; break;
    case ir::UnaryOp::BitNot: out = static_cast<double>(~detail::as_i64(x)); break;
    case ir::UnaryOp::Abs: out = std::fabs(x); break;
    case ir::UnaryOp::Cast: return Scalar{dt, cast_value(x, s->dtype, dt, CastMode::trunc), s->defined};
  }
  return Scalar{dt, store_rounded(out, dt), s->defined};
}

// ---- statements ----------------------------------------------------------------------------

inline Interpreter::Flow Interpreter::exec(const ir::Stmt& s) {
  if (!s) return Flow::normal;
  return ir::dispatch(s->v, ir::overloaded{
      [&](const ir::Assign& a) -> Flow {
        count_step(s->span);
        Value v = eval(a.value);
        bind(a.var, std::move(v));
        return Flow::normal;
      },
      [&](const ir::Eval& x) -> Flow {
        count_step(s->span);
        eval(x.expr);
        return Flow::normal;
      },
      [&](const ir::Seq& q) -> Flow {
        for (const auto& st : q.stmts) {
          Flow f = exec(st);
          if (f != Flow::normal) return f;
        }
        return Flow::normal;
      },
      [&](const ir::If& i) -> Flow {
        count_step(s->span);
        Value c = eval(i.cond);
        const Scalar* cs = c.scalar();
        if (!cs) throw RunError(RunErrorKind::invalid, "an if condition is not a scalar", s->span);
        if (!cs->defined) throw RunError(RunErrorKind::cannot_run, "an if condition reads an undefined value", s->span);
        frame().has_yield = false;
        Flow f = exec(cs->value != 0 ? i.then_body : i.else_body);
        if (f == Flow::return_ || f == Flow::break_ || f == Flow::continue_) return f;
        if (!i.return_vars.empty()) {
          if (!frame().has_yield || frame().yielded.size() != i.return_vars.size())
            throw RunError(RunErrorKind::invalid, "an if with results ended a branch without a matching yield", s->span);
          auto values = std::move(frame().yielded);
          frame().has_yield = false;
          for (std::size_t k = 0; k < values.size(); ++k) bind(i.return_vars[k], std::move(values[k]));
        }
        return Flow::normal;
      },
      [&](const ir::For& f) -> Flow { return exec_for(f, s->span); },
      [&](const ir::While& w) -> Flow { return exec_while(w, s->span); },
      [&](const ir::Yield& y) -> Flow {
        std::vector<Value> values;
        values.reserve(y.values.size());
        for (const auto& v : y.values) values.push_back(eval(v));
        frame().yielded = std::move(values);
        frame().has_yield = true;
        return Flow::normal;
      },
      [&](const ir::Return& r) -> Flow {
        std::vector<Value> values;
        for (const auto& v : r.values) values.push_back(eval(v));
        frame().returned = std::move(values);
        return Flow::return_;
      },
      [&](const ir::Break&) -> Flow { return Flow::break_; },
      [&](const ir::Continue&) -> Flow { return Flow::continue_; },
      [&](const ir::Scope& sc) -> Flow {
        if (sc.kind == ir::ScopeKind::spmd_for || sc.kind == ir::ScopeKind::split_aiv) {
          // Serialized: every block index runs in turn.
          std::int64_t n = sc.args.empty() ? 1 : eval_index(sc.args.front());
          for (std::int64_t b = 0; b < n; ++b) {
            if (sc.bound) bind(sc.bound, Scalar{scalar_dtype(sc.bound), static_cast<double>(b), true});
            Flow f = exec(sc.body);
            if (f == Flow::return_) return f;
          }
          return Flow::normal;
        }
        if (sc.bound) bind(sc.bound, Opaque{"task"});
        return exec(sc.body);
      },
  });
}

inline Interpreter::Flow Interpreter::exec_for(const ir::For& f, const ir::Span& span) {
  std::int64_t start = eval_index(f.start), stop = eval_index(f.stop), step = f.step ? eval_index(f.step) : 1;
  if (step == 0) throw RunError(RunErrorKind::cannot_run, "a for loop with step 0", span);
  std::vector<Value> carried;
  carried.reserve(f.iter_args.size());
  for (const auto& ia : f.iter_args) carried.push_back(eval(ir::as<ir::IterArg>(ia)->init));
  DataType index_dt = scalar_dtype(f.loop_var);
  for (std::int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    count_step(span);
    bind(f.loop_var, Scalar{index_dt, static_cast<double>(i), true});
    for (std::size_t k = 0; k < carried.size(); ++k) bind(f.iter_args[k], carried[k]);
    frame().has_yield = false;
    Flow fl = exec(f.body);
    if (fl == Flow::return_) return fl;
    if (frame().has_yield && frame().yielded.size() == carried.size()) carried = std::move(frame().yielded);
    frame().has_yield = false;
    if (fl == Flow::break_) break;
  }
  for (std::size_t k = 0; k < f.return_vars.size() && k < carried.size(); ++k) bind(f.return_vars[k], carried[k]);
  // An iter_arg read after its loop (out of scope in SSA form) reads as its return var, as
  // ConvertToSSA and upstream's DSL read a loop target after the loop; a while loop's
  // iter_args already hold the last carried values when its condition fails.
  for (std::size_t k = 0; k < carried.size(); ++k) bind(f.iter_args[k], carried[k]);
  return Flow::normal;
}

inline Interpreter::Flow Interpreter::exec_while(const ir::While& w, const ir::Span& span) {
  std::vector<Value> carried;
  for (const auto& ia : w.iter_args) carried.push_back(eval(ir::as<ir::IterArg>(ia)->init));
  for (;;) {
    count_step(span);
    for (std::size_t k = 0; k < carried.size(); ++k) bind(w.iter_args[k], carried[k]);
    Value c = eval(w.cond);
    const Scalar* cs = c.scalar();
    if (!cs) throw RunError(RunErrorKind::invalid, "a while condition is not a scalar", span);
    if (!cs->defined) throw RunError(RunErrorKind::cannot_run, "a while condition reads an undefined value", span);
    if (cs->value == 0) break;
    frame().has_yield = false;
    Flow fl = exec(w.body);
    if (fl == Flow::return_) return fl;
    if (frame().has_yield && frame().yielded.size() == carried.size()) carried = std::move(frame().yielded);
    frame().has_yield = false;
    if (fl == Flow::break_) break;
  }
  for (std::size_t k = 0; k < w.return_vars.size() && k < carried.size(); ++k) bind(w.return_vars[k], carried[k]);
  return Flow::normal;
}

// ---- OpCall --------------------------------------------------------------------------------

inline void OpCall::fail(RunErrorKind kind, const std::string& message) const {
  throw RunError(kind, std::string(name) + ": " + message, expr->span);
}
inline const Tile& OpCall::tile(std::size_t i) const {
  const Tile* t = has(i) ? args[i].tile() : nullptr;
  if (!t) fail("argument " + std::to_string(i) + " is not a tile");
  return *t;
}
inline TilePtr OpCall::tile_ptr(std::size_t i) const {
  (void)tile(i);
  return *args[i].tile_ptr();
}
inline const TensorRef& OpCall::tensor(std::size_t i) const {
  const TensorRef* t = has(i) ? args[i].tensor() : nullptr;
  if (!t) fail("argument " + std::to_string(i) + " is not a tensor");
  return *t;
}
inline const Scalar& OpCall::scalar(std::size_t i) const {
  const Scalar* s = has(i) ? args[i].scalar() : nullptr;
  if (!s) fail("argument " + std::to_string(i) + " is not a scalar");
  return *s;
}
inline std::int64_t OpCall::index(std::size_t i) const {
  const Scalar& s = scalar(i);
  if (!s.defined) fail(RunErrorKind::cannot_run, "index argument " + std::to_string(i) + " is undefined");
  return to_i64(s.value);
}
inline Dims OpCall::dims(std::size_t i) const {
  const auto* t = has(i) ? args[i].tuple() : nullptr;
  if (!t) fail("argument " + std::to_string(i) + " is not a tuple");
  Dims out;
  for (const auto& v : *t) {
    const Scalar* s = v.scalar();
    if (!s) fail("argument " + std::to_string(i) + " holds a non-scalar");
    if (!s->defined) fail(RunErrorKind::cannot_run, "argument " + std::to_string(i) + " reads an undefined value");
    out.push_back(modelled_index(to_i64(s->value), expr->span));
  }
  return out;
}
// A tensor result reads as the tile of its elements, so a tensor op can reuse its tile
// counterpart (tile_ops.hpp, on_tensors).
inline TileInfo OpCall::result_tile() const {
  if (ir::as<ir::TensorType>(expr->type)) {
    TensorAccess a = interp.tensor_access(expr->type, expr->span);
    return TileInfo{a.dtype, std::move(a.shape), std::move(a.valid)};
  }
  return interp.tile_info(expr->type, expr->span);
}
inline TensorAccess OpCall::access(std::size_t i) const {
  return interp.tensor_access(call.args.at(i)->type, expr->span);
}

}  // namespace tilewright::interp

// The op implementations and builtin_op_table().
#include "tilewright/interp/tile_ops.hpp"  // IWYU pragma: export
