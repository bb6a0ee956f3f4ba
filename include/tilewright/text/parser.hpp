#pragma once
// Parser for PyPTO's `pl` text (shared/spec/text_format.md), building tilewright IR
// (docs/ir.md).
//
//   ir::Program parse_program(std::string_view source, std::string file_name = "<input>",
//                             const ops::Registry& = ops::builtin_registry());
//
// Reads the raw printer layout, the ruff-formatted layout and the DSL sugar the seeds use.
// A lone `@pl.function` is a one-function program with an empty name. Every failure is an
// ir::Error carrying a user Diagnostic with origin "parser" and the offending token's span.
//
// Design notes (why, not what):
//  * Recursive descent straight over the token vector. Every loop consumes a token or stops
//    at a closing token, and every recursive production passes a depth guard, so arbitrary
//    input terminates in linear time without exhausting the stack.
//  * Functions are read in two phases: all signatures first, then all bodies. The printer
//    emits callees first, but user text need not, and `self.f(...)` needs f's return types.
//  * Python scoping: one name table per function. Plain reassignment reuses the Var (the
//    non-strict upstream behaviour); loop variables, iter_args and return vars are fresh.
//  * Yield-assignments (`r: T = pl.yield_(v)`) name the return vars of the innermost
//    enclosing for/while/if; the statement records them on a context stack and the
//    construct creates the Vars once its body is complete.
//  * Values that have no IR expression form (enum spellings, strings, dicts, scope
//    optimisation calls) travel as `PVal`s until a kwarg/attr/type consumer decides what
//    they mean; this keeps the expression grammar context-free.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tilewright/ir/diagnostic.hpp"
#include "tilewright/ir/function.hpp"
#include "tilewright/ops/catalog.hpp"
#include "tilewright/ops/create.hpp"
#include "tilewright/ops/registry.hpp"
#include "tilewright/text/lexer.hpp"

namespace tilewright::text {

namespace parser_detail {

using ir::Expr;
using ir::Span;
using ir::Stmt;
using ir::Type;

inline constexpr int kMaxDepth = 200;

// A parsed value before it is known how it will be used.
struct PVal {
  enum class Kind : std::uint8_t { expr, str, path, list, dict, none, raw };
  Kind kind = Kind::expr;
  Expr e;
  std::string s;  // string value, or the dotted path
  std::vector<PVal> items;
  std::vector<std::string> keys;  // dict keys; the values are `items` (pair<.., PVal> would need a complete PVal)
  Span span;
  std::size_t begin = 0, end = 0;  // source bytes, for values kept verbatim
  bool literal = false;            // a numeric/bool literal as written (possibly negated)
  bool paren_tuple = false;        // `(a, b)` rather than `[a, b]`
};

struct CallArgs {
  std::vector<PVal> pos;
  std::vector<std::pair<std::string, PVal>> kw;
  std::vector<Span> kw_spans;
  Span close;  // the closing ')' — where a missing argument is reported
};

// A `for` target: a name or a (possibly nested) tuple of targets.
struct Target {
  std::string name;
  Span span;
  bool is_tuple = false;
  std::vector<Target> items;
};

inline bool is_python_keyword(std::string_view s) {
  static constexpr std::string_view kw[] = {
      "False", "None",   "True",    "and",      "as",   "assert", "async", "await",
      "break", "class",  "continue", "def",     "del",  "elif",   "else",  "except",
      "finally", "for",  "from",    "global",   "if",   "import", "in",    "is",
      "lambda", "nonlocal", "not",  "or",       "pass", "raise",  "return", "try",
      "while", "with",   "yield"};
  for (auto k : kw)
    if (k == s) return true;
  return false;
}

inline std::vector<std::string_view> split_path(std::string_view p) {
  std::vector<std::string_view> out;
  std::size_t b = 0;
  for (std::size_t i = 0; i <= p.size(); ++i)
    if (i == p.size() || p[i] == '.') {
      out.push_back(p.substr(b, i - b));
      b = i + 1;
    }
  return out;
}

// Levenshtein distance, giving up (returning cap + 1) once it must exceed `cap`.
inline int edit_distance(std::string_view a, std::string_view b, int cap) {
  auto la = static_cast<int>(a.size()), lb = static_cast<int>(b.size());
  if (la - lb > cap || lb - la > cap) return cap + 1;
  std::vector<int> prev(static_cast<std::size_t>(lb) + 1), cur(prev.size());
  for (int j = 0; j <= lb; ++j) prev[static_cast<std::size_t>(j)] = j;
  for (int i = 1; i <= la; ++i) {
    cur[0] = i;
    int best = cur[0];
    for (int j = 1; j <= lb; ++j) {
      auto uj = static_cast<std::size_t>(j);
      int sub = prev[uj - 1] + (a[static_cast<std::size_t>(i - 1)] == b[uj - 1] ? 0 : 1);
      cur[uj] = std::min({prev[uj] + 1, cur[uj - 1] + 1, sub});
      best = std::min(best, cur[uj]);
    }
    if (best > cap) return cap + 1;
    std::swap(prev, cur);
  }
  return prev[static_cast<std::size_t>(lb)];
}

inline std::string dim_text(const Expr& e) {
  if (auto c = ir::const_int(e)) return std::to_string(*c);
  if (ir::is_var_like(e)) return std::string(ir::name_hint(e));
  return "?";
}

// A compact spelling for diagnostics ("pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]").
inline std::string type_text(const Type& t) {
  if (!t) return "<none>";
  auto dims = [](const std::vector<Expr>& s) {
    std::string o = "[";
    for (std::size_t i = 0; i < s.size(); ++i) o += (i ? ", " : "") + dim_text(s[i]);
    return o + "]";
  };
  auto dt = [](ir::DataType d) { return "pl." + std::string(ir::name_of(d)); };
  return ir::dispatch(
      t->v, ir::overloaded{
                [](const ir::UnknownType&) { return std::string("pl.UnknownType"); },
                [&](const ir::ScalarType& s) { return "pl.Scalar[" + dt(s.dtype) + "]"; },
                [&](const ir::TensorType& s) {
                  return std::string(s.distributed ? "pld.DistributedTensor[" : "pl.Tensor[") +
                         dims(s.shape) + ", " + dt(s.dtype) + "]";
                },
                [&](const ir::TileType& s) {
                  std::string o = "pl.Tile[" + dims(s.shape) + ", " + dt(s.dtype);
                  if (s.memory) o += ", pl.Mem." + std::string(ir::name_of(*s.memory));
                  return o + "]";
                },
                [&](const ir::ArrayType& s) {
                  return "pl.Array[" + std::to_string(s.extent) + ", " + dt(s.dtype) + "]";
                },
                [&](const ir::TupleType& s) {
                  std::string o = "pl.Tuple[";
                  for (std::size_t i = 0; i < s.elements.size(); ++i)
                    o += (i ? ", " : "") + type_text(s.elements[i]);
                  return o + "]";
                },
                [](const ir::MarkerType& m) {
                  switch (m.kind) {
                    case ir::Marker::Ptr: return std::string("pl.Ptr");
                    case ir::Marker::MemRefType: return std::string("pl.MemRefType");
                    case ir::Marker::WindowBufferType: return std::string("pld.WindowBufferType");
                    case ir::Marker::CommCtxType: return std::string("pld.CommCtxType");
                    default: return std::string("a marker type");
                  }
                },
            });
}

inline std::size_t type_kind(const Type& t) { return t ? t->v.index() : 0; }

// Whether two types are one type: dims and view fields by loosely_equal (so a symbolic dim
// matches only the same Var), every other field exactly.
inline bool same_type(const Type& a, const Type& b);
inline bool same_memref(const Expr& a, const Expr& b) {
  if (a == b) return true;
  auto* x = ir::as<ir::MemRef>(a);
  auto* y = ir::as<ir::MemRef>(b);
  return x && y && x->base == y->base && ir::loosely_equal(x->offset, y->offset) && x->size == y->size &&
         x->pinned == y->pinned && x->slots == y->slots && ir::loosely_equal(x->slot_index, y->slot_index);
}
inline bool same_type(const Type& a, const Type& b) {
  if (a == b) return true;
  if (!a || !b || a->v.index() != b->v.index()) return false;
  using ir::loosely_equal;
  if (auto* x = ir::as<ir::ScalarType>(a)) return x->dtype == ir::as<ir::ScalarType>(b)->dtype;
  if (auto* x = ir::as<ir::TensorType>(a)) {
    auto* y = ir::as<ir::TensorType>(b);
    if (x->dtype != y->dtype || x->distributed != y->distributed || !loosely_equal(x->shape, y->shape) ||
        x->view.has_value() != y->view.has_value() || !same_memref(x->memref, y->memref))
      return false;
    return !x->view || (loosely_equal(x->view->valid_shape, y->view->valid_shape) &&
                        loosely_equal(x->view->stride, y->view->stride) && x->view->layout == y->view->layout &&
                        x->view->pad == y->view->pad);
  }
  if (auto* x = ir::as<ir::TileType>(a)) {
    auto* y = ir::as<ir::TileType>(b);
    if (x->dtype != y->dtype || x->memory != y->memory || !loosely_equal(x->shape, y->shape) ||
        x->view.has_value() != y->view.has_value() || !same_memref(x->memref, y->memref))
      return false;
    if (!x->view) return true;
    const ir::TileView& v = *x->view;
    const ir::TileView& w = *y->view;
    return loosely_equal(v.valid_shape, w.valid_shape) && loosely_equal(v.stride, w.stride) &&
           loosely_equal(v.start_offset, w.start_offset) && v.blayout == w.blayout && v.slayout == w.slayout &&
           v.fractal == w.fractal && v.pad == w.pad && v.compact == w.compact;
  }
  if (auto* x = ir::as<ir::ArrayType>(a)) {
    auto* y = ir::as<ir::ArrayType>(b);
    return x->dtype == y->dtype && x->extent == y->extent;
  }
  if (auto* x = ir::as<ir::TupleType>(a)) {
    auto* y = ir::as<ir::TupleType>(b);
    if (x->elements.size() != y->elements.size()) return false;
    for (std::size_t i = 0; i < x->elements.size(); ++i)
      if (!same_type(x->elements[i], y->elements[i])) return false;
    return true;
  }
  if (auto* x = ir::as<ir::MarkerType>(a)) return x->kind == ir::as<ir::MarkerType>(b)->kind;
  return true;  // UnknownType
}

class Parser {
 public:
  Parser(std::string_view src, std::string file, const ops::Registry& reg)
      : src_(src), file_(std::make_shared<const std::string>(std::move(file))), reg_(reg) {
    std::vector<Token> raw = tokenize(src_, file_);
    toks_.reserve(raw.size());
    std::vector<std::string> pending;
    for (Token& t : raw) {
      if (t.kind == TokenKind::comment) {
        pending.push_back(std::move(t.text));
        continue;
      }
      if (!pending.empty()) comments_at_.emplace(toks_.size(), std::move(pending));
      pending.clear();
      toks_.push_back(std::move(t));
    }
    reg_.for_each([&](const ops::OpInfo& info) { op_names_.emplace(info.name, &info); });
  }

  ir::Program run();

 private:
  // ---- per-function and per-construct state ----------------------------------------------
  struct FnState {
    std::string name;
    Span span;
    ir::FunctionType type = ir::FunctionType::Opaque;
    std::optional<ir::Level> level;
    std::optional<ir::Role> role;
    ir::Kwargs attrs;
    std::vector<ir::Param> params;
    std::vector<Type> returns;
    std::size_t body_pos = 0;
    std::unordered_map<std::string, Expr> scope;
    std::unordered_map<std::string, Expr> ptrs;  // MemRef bases, interned by name
  };
  struct YieldRec {
    bool closing = false;  // the last statement of its block (set once the block is parsed)
    std::vector<std::string> names;
    std::vector<Span> spans;
    std::vector<Type> ann;     // annotation per name (single-name form only), or null
    std::vector<Type> values;  // yielded value types
    Span span;
  };
  struct YieldCtx {
    std::vector<YieldRec> recs;
  };

  struct DepthGuard {
    Parser& p;
    DepthGuard(Parser& parser, const Span& s) : p(parser) {
      if (++p.depth_ > kMaxDepth) {
        --p.depth_;
        p.fail(s, "nesting is too deep (more than " + std::to_string(kMaxDepth) +
                      " levels of brackets, operators, types or blocks)");
      }
    }
    ~DepthGuard() { --p.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
  };
  struct TypeCtx {  // inside annotations, unknown names become program-level dynamic dims
    Parser& p;
    bool saved;
    explicit TypeCtx(Parser& parser, bool on = true) : p(parser), saved(parser.type_ctx_) {
      p.type_ctx_ = on;
    }
    ~TypeCtx() { p.type_ctx_ = saved; }
    TypeCtx(const TypeCtx&) = delete;
    TypeCtx& operator=(const TypeCtx&) = delete;
  };

  // ---- tokens ------------------------------------------------------------------------------
  [[nodiscard]] const Token& cur() const { return toks_[pos_]; }
  [[nodiscard]] const Token& peek(std::size_t n = 1) const {
    return toks_[std::min(pos_ + n, toks_.size() - 1)];
  }
  [[nodiscard]] bool at(TokenKind k) const { return cur().kind == k; }
  [[nodiscard]] bool at_name(std::string_view s) const { return cur().is_name(s); }
  const Token& advance() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool accept(TokenKind k) {
    if (!at(k)) return false;
    advance();
    return true;
  }
  [[nodiscard]] std::size_t prev_end() const {
    if (pos_ == 0) return 0;
    const Token& t = toks_[pos_ - 1];
    return t.offset + t.length;
  }

  [[noreturn]] void fail(const Span& s, std::string msg) const {
    ir::throw_user_error("parser", std::move(msg), s);
  }
  [[noreturn]] void fail_expected(std::string_view what, std::string_view context = {}) const {
    std::string m = "expected ";
    m += what;
    if (!context.empty()) {
      m += ' ';
      m += context;
    }
    m += ", found " + describe(cur());
    fail(cur().span, std::move(m));
  }
  const Token& expect(TokenKind k, std::string_view context = {}) {
    if (!at(k)) fail_expected(token_kind_name(k), context);
    return advance();
  }
  const Token& expect_name(std::string_view what, std::string_view context = {}) {
    if (!at(TokenKind::name)) fail_expected(what, context);
    return advance();
  }
  void expect_keyword(std::string_view kw, std::string_view context = {}) {
    if (!at_name(kw)) fail_expected("'" + std::string(kw) + "'", context);
    advance();
  }
  void expect_line_end(std::string_view context) {
    if (at(TokenKind::end)) return;
    if (!at(TokenKind::newline)) fail_expected("end of line", context);
    advance();
  }
  // A dotted name `a.b.c` starting at the current NAME token.
  std::string parse_dotted(std::string_view what, std::string_view context = {}) {
    std::string path = expect_name(what, context).text;
    while (at(TokenKind::dot)) {
      advance();
      path += '.';
      path += expect_name("a name after '.'").text;
    }
    return path;
  }
  bool at_path(std::string_view a, std::string_view b) const {
    return cur().is_name(a) && peek(1).is(TokenKind::dot) && peek(2).is_name(b);
  }
  std::vector<std::string> take_comments(std::size_t at_index) {
    auto it = comments_at_.find(at_index);
    if (it == comments_at_.end()) return {};
    std::vector<std::string> out = std::move(it->second);
    comments_at_.erase(it);
    return out;
  }

  // ---- values ------------------------------------------------------------------------------
  static PVal of(Expr e, Span s, bool literal = false) {
    PVal v;
    v.kind = PVal::Kind::expr;
    v.e = std::move(e);
    v.span = std::move(s);
    v.literal = literal;
    return v;
  }
  std::string describe_val(const PVal& v) const {
    switch (v.kind) {
      case PVal::Kind::expr: return "a value of type " + type_text(v.e->type);
      case PVal::Kind::str: return "a string literal";
      case PVal::Kind::path: return "'" + v.s + "'";
      case PVal::Kind::list: return "a list";
      case PVal::Kind::dict: return "a dict";
      case PVal::Kind::none: return "None";
      case PVal::Kind::raw: return "'" + raw_text(v) + "'";
    }
    return "a value";
  }
  std::string raw_text(const PVal& v) const {
    if (v.end <= v.begin || v.end > src_.size()) return v.s;
    return std::string(src_.substr(v.begin, v.end - v.begin));
  }

  const ops::OpInfo* find_op(const std::string& name) const {
    auto it = op_names_.find(name);
    return it == op_names_.end() ? nullptr : it->second;
  }
  std::string suggest(std::string_view name, const std::vector<std::string>& pool) const {
    std::string best;
    int best_d = 3;
    for (const auto& n : pool) {
      int d = edit_distance(name, n, 2);
      if (d < best_d || (d == best_d && !best.empty() && n < best)) {
        best_d = d;
        best = n;
      }
    }
    return best_d <= 2 ? best : std::string();
  }
  [[noreturn]] void unknown_op(const std::string& name, const Span& s) const {
    std::vector<std::string> pool;
    pool.reserve(op_names_.size());
    for (const auto& kv : op_names_) pool.push_back(kv.first);
    std::string m = "unknown op '" + name + "'";
    if (auto s2 = suggest(name, pool); !s2.empty()) m += "; did you mean '" + s2 + "'?";
    fail(s, std::move(m));
  }

  // ---- scalar expression construction (§4.3) -------------------------------------------------
  const ir::ScalarType& scalar_operand(const Expr& e, const Span& s, std::string_view op) const {
    auto* st = e ? ir::as<ir::ScalarType>(e->type) : nullptr;
    if (!st)
      fail(s, "operator '" + std::string(op) + "' needs scalar operands, found a value of type " +
                  type_text(e ? e->type : nullptr));
    return *st;
  }
  static Expr cast_to(const Expr& e, ir::DataType dt) {
    return ir::make_expr(ir::Unary{ir::UnaryOp::Cast, e}, ir::scalar_type(dt), e->span);
  }
  Expr make_binary(ir::BinaryOp op, std::string_view spelling, const PVal& l, const PVal& r,
                   const Span& span) {
    Expr a = value_expr(l, "an operand");
    Expr b = value_expr(r, "an operand");
    ir::DataType da = scalar_operand(a, l.span, spelling).dtype;
    ir::DataType db = scalar_operand(b, r.span, spelling).dtype;
    using B = ir::BinaryOp;
    if (op == B::And || op == B::Or)
      return ir::make_expr(ir::Binary{op, a, b}, ir::scalar_type(ir::DataType::BOOL), span);
    if (ir::is_float(da) != ir::is_float(db))
      fail(span, "operator '" + std::string(spelling) + "' cannot mix pl." +
                     std::string(ir::name_of(da)) + " and pl." + std::string(ir::name_of(db)) +
                     " operands; convert one side with pl.cast");
    ir::DataType res = da;
    if (da != db && !ir::same_index_class(da, db))
      res = ir::bit_width(db) > ir::bit_width(da) ? db : da;
    if (da != res && !ir::same_index_class(da, res)) a = cast_to(a, res);
    if (db != res && !ir::same_index_class(db, res)) b = cast_to(b, res);
    bool cmp = op == B::Eq || op == B::Ne || op == B::Lt || op == B::Le || op == B::Gt || op == B::Ge;
    return ir::make_expr(ir::Binary{op, a, b},
                         ir::scalar_type(cmp ? ir::DataType::BOOL : res), span);
  }

  // Turns a parsed value into an IR expression where one is required.
  Expr value_expr(const PVal& v, std::string_view what) {
    switch (v.kind) {
      case PVal::Kind::expr: return v.e;
      case PVal::Kind::list: {
        std::vector<Expr> els;
        els.reserve(v.items.size());
        for (const auto& it : v.items) els.push_back(value_expr(it, "a list element"));
        return ir::make_tuple(std::move(els), v.span);
      }
      case PVal::Kind::path: {
        if (auto m = memory_space_of(v.s))
          return ir::make_int(static_cast<std::int64_t>(*m), ir::DataType::INDEX, v.span);
        break;
      }
      case PVal::Kind::none: return build_op("system.task_invalid", CallArgs{}, v.span);
      default: break;
    }
    fail(v.span, "expected " + std::string(what) + ", found " + describe_val(v));
  }

  // ---- enum spellings ------------------------------------------------------------------------
  static std::optional<ir::MemorySpace> memory_space_of(std::string_view path) {
    auto p = split_path(path);
    if (p.size() < 2) return std::nullopt;
    auto fam = p[p.size() - 2];
    if (fam != "Mem" && fam != "MemorySpace") return std::nullopt;
    return ir::enum_from_name<ir::MemorySpace>(p.back());
  }
  static std::optional<ir::DataType> dtype_of(std::string_view path) {
    auto p = split_path(path);
    if (p.size() > 2 && p[p.size() - 2] != "DataType") return std::nullopt;
    return ir::enum_from_name<ir::DataType>(p.back());
  }
  template <class E>
  static std::optional<E> enum_of(std::string_view path, std::string_view family) {
    auto p = split_path(path);
    if (p.size() < 2 || p[p.size() - 2] != family) return std::nullopt;
    return ir::enum_from_name<E>(p.back());
  }

  // A kwarg or attribute value, typed by its spelling (§4.5, §4.6) and, when the op row
  // declares the kwarg, by its declared kind.
  ir::AttrValue attr_value(std::string_view key, const PVal& v, const ops::KwargSpec* spec,
                           bool cast_mode_strings) {
    using K = ops::KwargKind;
    bool want_expr = spec && spec->kind == K::expr;
    switch (v.kind) {
      case PVal::Kind::str:
        if (cast_mode_strings && key == "mode")
          if (auto m = ir::enum_from_name<ir::CastMode>(v.s)) return static_cast<std::int64_t>(*m);
        return v.s;
      case PVal::Kind::path: {
        if (auto x = enum_of<ir::PipeType>(v.s, "PipeType")) return static_cast<std::int64_t>(*x);
        if (auto x = enum_of<ir::AtomicType>(v.s, "AtomicType")) return static_cast<std::int64_t>(*x);
        if (auto x = memory_space_of(v.s)) return *x;
        if (auto x = enum_of<ir::TensorLayout>(v.s, "TensorLayout")) return *x;
        if (auto x = enum_of<ir::TileLayout>(v.s, "TileLayout")) return *x;
        if (auto x = enum_of<ir::PadValue>(v.s, "PadValue")) return *x;
        if (auto x = enum_of<ir::ArgDirection>(v.s, "adir")) return *x;
        if (auto x = dtype_of(v.s)) return *x;
        if (split_path(v.s).size() < 3)
          fail(v.span, "unknown name '" + v.s + "' as the value of '" + std::string(key) + "'");
        return ir::EnumText{v.s};
      }
      case PVal::Kind::expr:
        if (v.literal && !want_expr) {
          if (auto* b = ir::as<ir::ConstBool>(v.e)) return b->value;
          if (auto* i = ir::as<ir::ConstInt>(v.e)) {
            if (spec && spec->kind == K::floating) return static_cast<double>(i->value);
            return i->value;
          }
          if (auto* f = ir::as<ir::ConstFloat>(v.e)) return f->value;
        }
        return v.e;
      case PVal::Kind::list: {
        if (want_expr) return value_expr(v, "a value");
        bool ints = true, dirs = true, exprs = true, raw = false;
        for (const auto& it : v.items) {
          ints = ints && it.kind == PVal::Kind::expr && it.literal && ir::as<ir::ConstInt>(it.e);
          dirs = dirs && it.kind == PVal::Kind::path && enum_of<ir::ArgDirection>(it.s, "adir");
          exprs = exprs && (it.kind == PVal::Kind::expr || it.kind == PVal::Kind::list);
          raw = raw || it.kind == PVal::Kind::raw;
        }
        if (raw) return ir::EnumText{raw_text(v)};
        if (ints) {
          std::vector<std::int64_t> xs;
          for (const auto& it : v.items) xs.push_back(ir::as<ir::ConstInt>(it.e)->value);
          return xs;
        }
        if (dirs) {
          std::vector<ir::ArgDirection> xs;
          for (const auto& it : v.items) xs.push_back(*enum_of<ir::ArgDirection>(it.s, "adir"));
          return xs;
        }
        if (exprs) {
          std::vector<Expr> xs;
          for (const auto& it : v.items) xs.push_back(value_expr(it, "a list element"));
          return xs;
        }
        return value_expr(v, "a list of values");
      }
      case PVal::Kind::raw: return ir::EnumText{raw_text(v)};
      case PVal::Kind::none:
      case PVal::Kind::dict: break;
    }
    fail(v.span, "unsupported value " + describe_val(v) + " for '" + std::string(key) + "'");
  }
  ir::Kwargs attrs_dict(const PVal& v) {
    if (v.kind != PVal::Kind::dict)
      fail(v.span, "expected a dict such as {\"key\": value} for attrs, found " + describe_val(v));
    ir::Kwargs out;
    for (std::size_t i = 0; i < v.keys.size(); ++i)
      out.emplace_back(v.keys[i], attr_value(v.keys[i], v.items[i], nullptr, false));
    return out;
  }

  // ---- expressions -------------------------------------------------------------------------
  PVal parse_expr() {
    DepthGuard g(*this, cur().span);
    std::size_t start = pos_;
    PVal v = parse_or();
    v.begin = toks_[start].offset;
    v.end = std::max(prev_end(), v.begin);
    return v;
  }
  PVal parse_or() {
    PVal l = parse_and();
    while (at_name("or")) {
      Span s = advance().span;
      PVal r = parse_and();
      Span ls = l.span;
      l = of(make_binary(ir::BinaryOp::Or, "or", l, r, ls), ls);
      (void)s;
    }
    return l;
  }
  PVal parse_and() {
    PVal l = parse_not();
    while (at_name("and")) {
      advance();
      PVal r = parse_not();
      Span ls = l.span;
      l = of(make_binary(ir::BinaryOp::And, "and", l, r, ls), ls);
    }
    return l;
  }
  PVal parse_not() {
    if (!at_name("not")) return parse_cmp();
    DepthGuard g(*this, cur().span);
    Span s = advance().span;
    PVal o = parse_not();
    Expr e = value_expr(o, "an operand of 'not'");
    scalar_operand(e, o.span, "not");
    return of(ir::make_expr(ir::Unary{ir::UnaryOp::Not, e}, ir::scalar_type(ir::DataType::BOOL), s), s);
  }
  std::optional<std::pair<ir::BinaryOp, std::string_view>> cmp_op() const {
    using B = ir::BinaryOp;
    switch (cur().kind) {
      case TokenKind::equal_equal: return std::pair{B::Eq, std::string_view("==")};
      case TokenKind::not_equal: return std::pair{B::Ne, std::string_view("!=")};
      case TokenKind::less: return std::pair{B::Lt, std::string_view("<")};
      case TokenKind::less_equal: return std::pair{B::Le, std::string_view("<=")};
      case TokenKind::greater: return std::pair{B::Gt, std::string_view(">")};
      case TokenKind::greater_equal: return std::pair{B::Ge, std::string_view(">=")};
      default: return std::nullopt;
    }
  }
  PVal parse_cmp() {
    PVal l = parse_bitor();
    if (at_name("in") || at_name("is") || (at_name("not") && peek().is_name("in")))
      fail(cur().span, "'" + cur().text + "' comparisons are not supported");
    auto op = cmp_op();
    if (!op) return l;
    advance();
    PVal r = parse_bitor();
    if (cmp_op())
      fail(cur().span, "chained comparisons are not supported; add parentheses, e.g. (a < b) == c");
    Span ls = l.span;
    return of(make_binary(op->first, op->second, l, r, ls), ls);
  }
  template <class Next>
  PVal parse_left_assoc(Next next, std::initializer_list<std::pair<TokenKind, ir::BinaryOp>> ops,
                        std::initializer_list<std::string_view> spellings) {
    PVal l = (this->*next)();
    for (;;) {
      std::size_t k = 0;
      bool found = false;
      for (const auto& [tk, bop] : ops) {
        if (at(tk)) {
          found = true;
          advance();
          PVal r = (this->*next)();
          Span ls = l.span;
          l = of(make_binary(bop, *(spellings.begin() + static_cast<std::ptrdiff_t>(k)), l, r, ls), ls);
          break;
        }
        ++k;
      }
      if (!found) return l;
    }
  }
  PVal parse_bitor() {
    return parse_left_assoc(&Parser::parse_bitxor, {{TokenKind::pipe, ir::BinaryOp::BitOr}}, {"|"});
  }
  PVal parse_bitxor() {
    return parse_left_assoc(&Parser::parse_bitand, {{TokenKind::caret, ir::BinaryOp::BitXor}}, {"^"});
  }
  PVal parse_bitand() {
    return parse_left_assoc(&Parser::parse_shift, {{TokenKind::amp, ir::BinaryOp::BitAnd}}, {"&"});
  }
  PVal parse_shift() {
    return parse_left_assoc(&Parser::parse_arith,
                            {{TokenKind::lshift, ir::BinaryOp::Shl}, {TokenKind::rshift, ir::BinaryOp::Shr}},
                            {"<<", ">>"});
  }
  PVal parse_arith() {
    return parse_left_assoc(&Parser::parse_term,
                            {{TokenKind::plus, ir::BinaryOp::Add}, {TokenKind::minus, ir::BinaryOp::Sub}},
                            {"+", "-"});
  }
  PVal parse_term() {
    PVal l = parse_left_assoc(&Parser::parse_unary,
                              {{TokenKind::star, ir::BinaryOp::Mul},
                               {TokenKind::slash, ir::BinaryOp::FloatDiv},
                               {TokenKind::double_slash, ir::BinaryOp::FloorDiv},
                               {TokenKind::percent, ir::BinaryOp::FloorMod}},
                              {"*", "/", "//", "%"});
    if (at(TokenKind::at)) fail(cur().span, "the matrix-multiply operator '@' is not supported; use pl.tile.matmul");
    return l;
  }
  PVal parse_unary() {
    if (!at(TokenKind::minus) && !at(TokenKind::plus) && !at(TokenKind::tilde)) return parse_power();
    DepthGuard g(*this, cur().span);
    const Token& op = advance();
    Span s = op.span;
    TokenKind k = op.kind;
    if (k == TokenKind::minus && at(TokenKind::integer) &&
        cur().int_value == std::numeric_limits<std::int64_t>::min() &&
        !peek().is(TokenKind::double_star)) {
      advance();
      return of(ir::make_int(std::numeric_limits<std::int64_t>::min(), ir::DataType::INDEX, s), s, true);
    }
    PVal o = parse_unary();
    if (k == TokenKind::minus && o.literal && o.kind == PVal::Kind::expr) {
      if (auto* c = ir::as<ir::ConstInt>(o.e))
        return of(ir::make_int(static_cast<std::int64_t>(0ULL - static_cast<std::uint64_t>(c->value)),
                               ir::as<ir::ScalarType>(o.e->type)->dtype, s),
                  s, true);
      if (auto* f = ir::as<ir::ConstFloat>(o.e))
        return of(ir::make_float(-f->value, ir::as<ir::ScalarType>(o.e->type)->dtype, s), s, true);
    }
    std::string_view sp = k == TokenKind::minus ? "-" : k == TokenKind::plus ? "+" : "~";
    Expr e = value_expr(o, "an operand");
    const ir::ScalarType& st = scalar_operand(e, o.span, sp);
    if (k == TokenKind::plus) return o;
    if (k == TokenKind::tilde && !ir::is_integer(st.dtype))
      fail(o.span, "operator '~' needs an integer operand, found pl." + std::string(ir::name_of(st.dtype)));
    return of(ir::make_expr(ir::Unary{k == TokenKind::minus ? ir::UnaryOp::Neg : ir::UnaryOp::BitNot, e},
                            e->type, s),
              s);
  }
  PVal parse_power() {
    PVal base = parse_primary();
    if (!at(TokenKind::double_star)) return base;
    advance();
    PVal ex = parse_unary();
    Span s = base.span;
    return of(make_binary(ir::BinaryOp::Pow, "**", base, ex, s), s);
  }
  PVal parse_primary() {
    PVal v = parse_atom();
    for (;;) {
      if (at(TokenKind::lbracket)) {
        Span s = advance().span;
        PVal idx = parse_expr();
        expect(TokenKind::rbracket, "to close the subscript");
        if (v.kind != PVal::Kind::expr || !ir::as<ir::TupleType>(v.e->type))
          fail(s, "subscripts are supported only on tuple values, found " + describe_val(v));
        auto* c = idx.kind == PVal::Kind::expr && idx.literal ? ir::as<ir::ConstInt>(idx.e) : nullptr;
        if (!c) fail(idx.span, "a tuple index must be an integer literal, found " + describe_val(idx));
        const auto& els = ir::as<ir::TupleType>(v.e->type)->elements;
        if (c->value < 0 || static_cast<std::uint64_t>(c->value) >= els.size())
          fail(idx.span, "tuple index " + std::to_string(c->value) + " is out of range for " +
                             type_text(v.e->type));
        Span vs = v.span;
        v = of(ir::make_expr(ir::TupleGetItem{v.e, c->value}, els[static_cast<std::size_t>(c->value)], vs), vs);
      } else if (at(TokenKind::lparen)) {
        fail(cur().span, "this value cannot be called");
      } else if (at(TokenKind::dot)) {
        fail(cur().span, "attribute access on values is not supported");
      } else {
        return v;
      }
    }
  }
  PVal parse_atom() {
    const Token& t = cur();
    Span s = t.span;
    switch (t.kind) {
      case TokenKind::integer:
        if (t.int_value == std::numeric_limits<std::int64_t>::min())
          fail(s, "integer literal " + t.text + " does not fit in 64 bits");
        advance();
        return of(ir::make_int(t.int_value, ir::DataType::INDEX, s), s, true);
      case TokenKind::floating: {
        double f = t.float_value;
        advance();
        return of(ir::make_float(f, ir::DataType::FP32, s), s, true);
      }
      case TokenKind::string: {
        PVal v;
        v.kind = PVal::Kind::str;
        v.span = s;
        while (at(TokenKind::string)) v.s += advance().text;
        return v;
      }
      case TokenKind::lparen: {
        advance();
        if (accept(TokenKind::rparen)) {
          PVal v;
          v.kind = PVal::Kind::list;
          v.paren_tuple = true;
          v.span = s;
          return v;
        }
        PVal first = parse_expr();
        if (!at(TokenKind::comma)) {
          expect(TokenKind::rparen, "to close the parenthesised expression");
          return first;
        }
        PVal v;
        v.kind = PVal::Kind::list;
        v.paren_tuple = true;
        v.span = s;
        v.items.push_back(std::move(first));
        while (accept(TokenKind::comma)) {
          if (at(TokenKind::rparen)) break;
          v.items.push_back(parse_expr());
        }
        expect(TokenKind::rparen, "to close the tuple");
        return v;
      }
      case TokenKind::lbracket: {
        advance();
        PVal v;
        v.kind = PVal::Kind::list;
        v.span = s;
        while (!at(TokenKind::rbracket)) {
          v.items.push_back(parse_expr());
          if (!accept(TokenKind::comma)) break;
        }
        expect(TokenKind::rbracket, "to close the list");
        return v;
      }
      case TokenKind::lbrace: {
        advance();
        PVal v;
        v.kind = PVal::Kind::dict;
        v.span = s;
        while (!at(TokenKind::rbrace)) {
          if (!at(TokenKind::string)) fail_expected("a string key", "in the dict");
          std::string key = advance().text;
          for (const auto& k : v.keys)
            if (k == key) fail(toks_[pos_ - 1].span, "duplicate key \"" + key + "\" in dict");
          expect(TokenKind::colon, "after the dict key");
          v.keys.push_back(std::move(key));
          v.items.push_back(parse_expr());
          if (!accept(TokenKind::comma)) break;
        }
        expect(TokenKind::rbrace, "to close the dict");
        return v;
      }
      case TokenKind::name: break;
      default: fail_expected("an expression");
    }
    if (t.text == "True" || t.text == "False") {
      bool b = t.text == "True";
      advance();
      return of(ir::make_bool(b, s), s, true);
    }
    if (t.text == "None") {
      advance();
      PVal v;
      v.kind = PVal::Kind::none;
      v.span = s;
      return v;
    }
    if (is_python_keyword(t.text)) fail_expected("an expression");
    const Expr* bound = lookup_bound(t.text);
    if (peek().is(TokenKind::dot) && (!bound || t.text == "pl" || t.text == "pld" || t.text == "self")) {
      std::string path = parse_dotted("a name");
      if (at(TokenKind::lparen)) return call_path(path, s);
      PVal v;
      v.kind = PVal::Kind::path;
      v.s = std::move(path);
      v.span = s;
      return v;
    }
    if (peek().is(TokenKind::lparen) && !bound) {
      std::string name = advance().text;
      return call_path(name, s);
    }
    advance();
    return of(resolve_name(t.text, s), s);
  }

  const Expr* lookup_bound(const std::string& name) const {
    if (fn_) {
      if (auto it = fn_->scope.find(name); it != fn_->scope.end()) return &it->second;
    }
    if (auto it = dyn_.find(name); it != dyn_.end()) return &it->second;
    return nullptr;
  }
  Expr resolve_name(const std::string& name, const Span& s) {
    if (const Expr* e = lookup_bound(name)) return *e;
    if (type_ctx_) return dynamic_var(name, s);
    if (name == "pl" || name == "pld" || name == "self")
      fail(s, "'" + name + "' is a namespace, not a value");
    fail(s, "undefined name '" + name + "'");
  }
  Expr dynamic_var(const std::string& name, const Span& s) {
    auto it = dyn_.find(name);
    if (it != dyn_.end()) return it->second;
    Expr v = ir::make_var(name, ir::scalar_type(ir::DataType::INDEX), s);
    dyn_.emplace(name, v);
    return v;
  }

  CallArgs parse_call_args(std::string_view callee) {
    CallArgs a;
    expect(TokenKind::lparen, "to open the arguments of " + std::string(callee));
    while (!at(TokenKind::rparen)) {
      if (at(TokenKind::star) || at(TokenKind::double_star))
        fail(cur().span, "argument unpacking with '*' or '**' is not supported");
      if (at(TokenKind::name) && peek().is(TokenKind::assign)) {
        const Token& k = advance();
        std::string key = k.text;
        Span ks = k.span;
        advance();
        for (const auto& e : a.kw)
          if (e.first == key) fail(ks, "keyword argument '" + key + "' repeated in " + std::string(callee));
        a.kw.emplace_back(key, parse_expr());
        a.kw_spans.push_back(ks);
      } else {
        if (!a.kw.empty())
          fail(cur().span, "positional argument follows keyword argument in " + std::string(callee));
        a.pos.push_back(parse_expr());
      }
      if (!accept(TokenKind::comma)) break;
    }
    a.close = cur().span;
    expect(TokenKind::rparen, "to close the arguments of " + std::string(callee));
    return a;
  }
  static const PVal* kwarg(const CallArgs& a, std::string_view key) {
    for (const auto& [k, v] : a.kw)
      if (k == key) return &v;
    return nullptr;
  }
  static void drop_kwarg(CallArgs& a, std::string_view key) {
    for (std::size_t i = 0; i < a.kw.size(); ++i)
      if (a.kw[i].first == key) {
        a.kw.erase(a.kw.begin() + static_cast<std::ptrdiff_t>(i));
        a.kw_spans.erase(a.kw_spans.begin() + static_cast<std::ptrdiff_t>(i));
        return;
      }
  }
  void no_kwargs(const CallArgs& a, std::string_view callee) const {
    if (!a.kw.empty())
      fail(a.kw_spans[0], std::string(callee) + " takes no keyword argument '" + a.kw[0].first + "'");
  }
  void arity(const CallArgs& a, std::size_t lo, std::size_t hi, std::string_view callee, const Span& s) const {
    if (a.pos.size() < lo || a.pos.size() > hi)
      fail(a.pos.size() > hi ? a.pos[hi].span : s,
           std::string(callee) + " takes " +
               (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
               " positional arguments, got " + std::to_string(a.pos.size()));
  }

  PVal call_path(const std::string& path, const Span& s) {
    auto seg = split_path(path);
    if (path == "pl.const") return of(parse_const(s), s);
    if (path == "pl.min" || path == "pl.max") {
      CallArgs a = parse_call_args(path);
      no_kwargs(a, path);
      arity(a, 2, 2, path, s);
      return of(make_binary(path == "pl.min" ? ir::BinaryOp::Min : ir::BinaryOp::Max, path, a.pos[0], a.pos[1], s), s);
    }
    if (path == "pl.cast") return of(parse_cast(s), s);
    if (path == "abs") {
      CallArgs a = parse_call_args(path);
      no_kwargs(a, path);
      arity(a, 1, 1, path, s);
      Expr e = value_expr(a.pos[0], "an operand");
      scalar_operand(e, a.pos[0].span, "abs");
      return of(ir::make_expr(ir::Unary{ir::UnaryOp::Abs, e}, e->type, s), s);
    }
    if (path == "pl.split" || path == "pl.cross_core_slot") {
      parse_call_args(path);  // kept verbatim as part of a scope's optimizations list
      PVal v;
      v.kind = PVal::Kind::raw;
      v.span = s;
      return v;
    }
    if (path == "pl.yield_")
      fail(s, "pl.yield_ can only be a statement or the value of an assignment");
    if (path == "pl.cond") fail(s, "pl.cond can only be the first statement of a pl.while_ body");
    if (path == "pl.MemRef" || path == "pl.TileView" || path == "pl.TensorView")
      fail(s, path + " is only allowed inside a type annotation");
    if (path == "pl.submit" || path == "pl.spmd_submit") return of(parse_submit(path, s), s);
    if (seg.size() == 2 && seg[0] == "self") {
      CallArgs a = parse_call_args(path);
      return of(function_call(std::string(seg[1]), std::move(a), s), s);
    }
    if (seg.size() == 1) {
      CallArgs a = parse_call_args(path);
      return of(function_call(path, std::move(a), s), s);
    }
    if (seg[0] == "pl" && seg.size() == 3 &&
        (seg[1] == "tile" || seg[1] == "tensor" || seg[1] == "system" || seg[1] == "array" ||
         seg[1] == "prefetch")) {
      std::string name = std::string(seg[1]) + "." + op_stem(seg[2]);
      if (name == "tensor.adds") name = "tensor.add";
      CallArgs a = parse_call_args(path);
      return of(build_op(name, std::move(a), s), s);
    }
    if (seg[0] == "pld" && seg.size() >= 2) {
      std::string name = "pld";
      for (std::size_t i = 1; i < seg.size(); ++i)
        name += "." + (i + 1 == seg.size() ? op_stem(seg[i]) : std::string(seg[i]));
      CallArgs a = parse_call_args(path);
      return of(build_op(name, std::move(a), s), s);
    }
    if (seg[0] == "pl" && seg.size() == 2) {
      CallArgs a = parse_call_args(path);
      return of(sugar_call(std::string(seg[1]), std::move(a), s), s);
    }
    fail(s, "unknown function '" + path + "'");
  }
  static std::string op_stem(std::string_view last) {
    if (last.size() > 1 && last.back() == '_' && is_python_keyword(last.substr(0, last.size() - 1)))
      return std::string(last.substr(0, last.size() - 1));
    return std::string(last);
  }

  Expr parse_const(const Span& s) {
    CallArgs a = parse_call_args("pl.const");
    no_kwargs(a, "pl.const");
    arity(a, 2, 2, "pl.const", s);
    const PVal& v = a.pos[0];
    if (a.pos[1].kind != PVal::Kind::path || !dtype_of(a.pos[1].s))
      fail(a.pos[1].span, "expected a dtype such as pl.INT32 as the second argument of pl.const, found " +
                              describe_val(a.pos[1]));
    ir::DataType dt = *dtype_of(a.pos[1].s);
    if (v.kind != PVal::Kind::expr || !v.literal || ir::as<ir::ConstBool>(v.e))
      fail(v.span, "expected a number literal as the first argument of pl.const, found " + describe_val(v));
    if (auto* i = ir::as<ir::ConstInt>(v.e)) {
      if (ir::is_float(dt)) return ir::make_float(static_cast<double>(i->value), dt, s);
      return ir::make_int(i->value, dt, s);
    }
    if (!ir::is_float(dt))
      fail(v.span, "a float literal cannot be a pl.const of integer dtype pl." + std::string(ir::name_of(dt)));
    return ir::make_float(ir::as<ir::ConstFloat>(v.e)->value, dt, s);
  }
  Expr parse_cast(const Span& s) {
    CallArgs a = parse_call_args("pl.cast");
    if (a.pos.empty()) fail(a.close, "pl.cast needs a value to convert");
    const PVal& x = a.pos[0];
    bool scalar = x.kind == PVal::Kind::expr && ir::as<ir::ScalarType>(x.e->type);
    if (scalar) {
      no_kwargs(a, "pl.cast of a scalar");
      arity(a, 2, 2, "pl.cast", s);
      if (a.pos[1].kind != PVal::Kind::path || !dtype_of(a.pos[1].s))
        fail(a.pos[1].span, "expected a dtype such as pl.INT32 as the second argument of pl.cast, found " +
                                describe_val(a.pos[1]));
      return cast_to(x.e, *dtype_of(a.pos[1].s));
    }
    if (a.pos.size() >= 2 && a.pos[1].kind == PVal::Kind::path && dtype_of(a.pos[1].s)) {
      a.kw.insert(a.kw.begin(), {"target_type", a.pos[1]});
      a.kw_spans.insert(a.kw_spans.begin(), a.pos[1].span);
      a.pos.erase(a.pos.begin() + 1);
    }
    return sugar_dispatch("cast", std::move(a), s);
  }

  // `pl.<op>(...)`: the unified DSL ops dispatch on their operands (§6.1).
  Expr sugar_call(const std::string& op, CallArgs a, const Span& s) {
    if (op == "load") {
      if (a.pos.size() < 3)
        fail(a.close, "pl.load needs (tensor, offsets, shapes), got " + std::to_string(a.pos.size()) + " arguments");
      if (a.pos.size() == 3) {
        const PVal* vs = kwarg(a, "valid_shapes");
        if (!vs) vs = kwarg(a, "valid_shape");
        a.pos.push_back(vs ? *vs : a.pos[2]);
      }
      drop_kwarg(a, "valid_shapes");
      drop_kwarg(a, "valid_shape");
      if (!kwarg(a, "target_memory")) {
        PVal m;
        m.kind = PVal::Kind::path;
        m.s = "pl.Mem.Vec";
        m.span = s;
        a.kw.emplace_back("target_memory", m);
        a.kw_spans.push_back(s);
      }
      return build_op("tile.load", std::move(a), s);
    }
    if (op == "store") return build_op("tile.store", std::move(a), s);
    if (op == "create_tensor") return build_op("tensor.create", std::move(a), s);
    if (op == "create_tile") return build_op("tile.create", std::move(a), s);
    return sugar_dispatch(op, std::move(a), s);
  }
  Expr sugar_dispatch(const std::string& op, CallArgs a, const Span& s) {
    std::string prefix;
    for (const auto& p : a.pos) {
      if (p.kind != PVal::Kind::expr) continue;
      if (ir::as<ir::TileType>(p.e->type)) prefix = "tile.";
      else if (ir::as<ir::TensorType>(p.e->type)) prefix = "tensor.";
      if (!prefix.empty()) break;
    }
    if (prefix.empty())
      fail(s, "pl." + op + " needs a tile or tensor operand to choose between pl.tile." + op +
                  " and pl.tensor." + op);
    std::string name = prefix + op_stem(op);
    if (a.pos.size() >= 2 && a.pos[1].kind == PVal::Kind::expr && ir::as<ir::ScalarType>(a.pos[1].e->type)) {
      std::string scalar_form = name + "s";
      if (scalar_form == "tensor.adds") scalar_form = "tensor.add";
      if (find_op(scalar_form)) name = scalar_form;
    }
    if (!find_op(name)) fail(s, "unknown op 'pl." + op + "' (no op '" + name + "')");
    return build_op(name, std::move(a), s);
  }

  // Builds a registered op call: keywords that name positional parameters become positional
  // (the special forms of §4.5: `value=`, `shape=`, `valid_shape=`, `scratch=`, `deps=`).
  Expr build_op(const std::string& name, CallArgs a, const Span& s) {
    const ops::OpInfo* info = find_op(name);
    if (!info) unknown_op(name, s);
    ir::Kwargs kwargs, attrs;
    std::map<std::size_t, PVal> by_name;
    for (std::size_t i = 0; i < a.kw.size(); ++i) {
      const auto& [k, v] = a.kw[i];
      if (k == "attrs") {
        attrs = attrs_dict(v);
        continue;
      }
      const ops::KwargSpec* spec = info->kwarg(k);
      if (!spec) {
        auto it = std::find(info->arg_names.begin(), info->arg_names.end(), k);
        if (it != info->arg_names.end()) {
          auto idx = static_cast<std::size_t>(it - info->arg_names.begin());
          if (idx < a.pos.size())
            fail(a.kw_spans[i], "argument '" + k + "' of " + name + " is given both by position and by keyword");
          by_name.emplace(idx, v);
          continue;
        }
      }
      kwargs.emplace_back(k, attr_value(k, v, spec, true));
    }
    for (auto& [idx, v] : by_name) {
      if (idx != a.pos.size())
        fail(v.span, "argument '" + info->arg_names[idx] + "' of " + name +
                         " is given by keyword, but an earlier positional argument is missing");
      a.pos.push_back(std::move(v));
    }
    std::vector<Expr> args;
    args.reserve(a.pos.size());
    for (const auto& p : a.pos) args.push_back(value_expr(p, "an argument of " + name));
    auto rethrow = [&](const ir::Error& e) {
      const ir::Diagnostic& d = e.diagnostic();
      throw ir::Error(ir::Diagnostic{ir::Severity::error, ir::ErrorKind::user, "parser", d.message,
                                     d.span.known() ? d.span : s, d.notes});
    };
    // The annotation of `x: T = <this call>` stands in when the op cannot deduce a type:
    // printed text is always annotated, and upstream's reader trusts it the same way.
    const Token& head = toks_[rhs_tok_];
    Type ann = rhs_ann_ && same_start(head.span, s) ? rhs_ann_ : nullptr;
    Type type;
    try {
      ops::validate_call(*info, args, kwargs, s);
    } catch (const ir::Error& e) {
      rethrow(e);
    }
    try {
      if (auto d = ops::deduce_type(*info, args, kwargs, s)) type = *d;
    } catch (const ir::Error& e) {
      if (!ann) rethrow(e);
    } catch (const std::exception& e) {
      if (!ann) fail(s, "cannot build " + name + ": " + e.what());
    }
    if (!type && !ann && !info->deduce && eval_tok_ < toks_.size() && same_start(toks_[eval_tok_].span, s))
      type = ir::unknown_type();  // the whole statement: its value is discarded, so it needs no type
    if (!type) {
      if (!ann) fail(s, name + " has no type deduction; annotate the result type (x: pl.Tile[...] = ...)");
      type = ann;
    }
    try {
      type = ops::stamp_memory(*info, type, args, kwargs);
    } catch (const std::exception& e) {
      fail(s, "cannot build " + name + ": " + e.what());
    }
    Expr call = ir::make_call(info->id, std::move(args), std::move(kwargs), type, s);
    if (!call) fail(s, "cannot build " + name);
    if (!attrs.empty()) {
      if (auto* c = ir::as<ir::Call>(call)) {
        ir::Call copy = *c;
        copy.attrs = std::move(attrs);
        call = ir::make_expr(std::move(copy), call->type, call->span);
      }
    }
    return call;
  }

  static bool same_start(const Span& a, const Span& b) { return a.line == b.line && a.column == b.column; }

  FnState* find_fn(const std::string& name) {
    for (auto& f : fns_)
      if (f.name == name) return &f;
    return nullptr;
  }
  [[noreturn]] void unknown_function(const std::string& name, const Span& s) const {
    std::vector<std::string> pool;
    for (const auto& f : fns_) pool.push_back(f.name);
    std::string m = "unknown function '" + name + "'";
    if (auto g = suggest(name, pool); !g.empty()) m += "; did you mean '" + g + "'?";
    fail(s, std::move(m));
  }
  static Type returns_type(const FnState& f) {
    if (f.returns.empty()) return ir::unknown_type();
    if (f.returns.size() == 1) return f.returns[0];
    return ir::make_type(ir::TupleType{f.returns});
  }
  ir::Kwargs call_kwargs(const CallArgs& a, ir::Kwargs* attrs) {
    ir::Kwargs out;
    for (const auto& [k, v] : a.kw) {
      if (k == "attrs") *attrs = attrs_dict(v);
      else out.emplace_back(k, attr_value(k, v, nullptr, false));
    }
    return out;
  }
  Expr function_call(const std::string& name, CallArgs a, const Span& s) {
    FnState* f = find_fn(name);
    if (!f) unknown_function(name, s);
    if (a.pos.size() != f->params.size())
      fail(s, "function '" + name + "' takes " + std::to_string(f->params.size()) + " arguments, got " +
                  std::to_string(a.pos.size()));
    std::vector<Expr> args;
    for (const auto& p : a.pos) args.push_back(value_expr(p, "an argument of " + name));
    ir::Kwargs attrs;
    ir::Kwargs kw = call_kwargs(a, &attrs);
    return ir::make_expr(ir::Call{ir::Callee{ir::OpId{}, name}, std::move(args), std::move(kw), std::move(attrs)},
                         returns_type(*f), s);
  }
  Expr parse_submit(const std::string& path, const Span& s) {
    CallArgs a = parse_call_args(path);
    if (a.pos.empty() || a.pos[0].kind != PVal::Kind::path)
      fail(a.pos.empty() ? a.close : a.pos[0].span, path + " needs the submitted function, e.g. self.kernel, first");
    auto seg = split_path(a.pos[0].s);
    std::string fname(seg.back());
    if (seg.size() > 2 || (seg.size() == 2 && seg[0] != "self"))
      fail(a.pos[0].span, "expected self.<function> as the first argument of " + path);
    FnState* f = find_fn(fname);
    if (!f) unknown_function(fname, a.pos[0].span);
    std::vector<Expr> args;
    for (std::size_t i = 1; i < a.pos.size(); ++i) args.push_back(value_expr(a.pos[i], "an argument of " + path));
    ir::Kwargs attrs;
    ir::Kwargs kw = call_kwargs(a, &attrs);
    std::vector<Type> els = f->returns;
    els.push_back(ir::scalar_type(ir::DataType::TASK_ID));
    std::string op = path.substr(3);
    return ir::make_expr(ir::Call{ir::Callee{ir::intern_op(op), fname}, std::move(args), std::move(kw), std::move(attrs)},
                         ir::make_type(ir::TupleType{std::move(els)}), s);
  }

  // ---- types (§2) --------------------------------------------------------------------------
  ir::DataType parse_dtype(std::string_view context) {
    if (!at(TokenKind::name)) fail_expected("a dtype such as pl.FP32", context);
    Span s = cur().span;
    std::string p = parse_dotted("a dtype");
    auto dt = dtype_of(p);
    if (!dt) fail(s, "expected a dtype such as pl.FP32 " + std::string(context) + ", found '" + p + "'");
    return *dt;
  }
  Expr parse_dim(std::string_view owner) {
    TypeCtx tc(*this);
    PVal v = parse_expr();
    if (v.kind != PVal::Kind::expr || !ir::as<ir::ScalarType>(v.e->type) ||
        !ir::is_integer(ir::as<ir::ScalarType>(v.e->type)->dtype))
      fail(v.span, "a dimension of " + std::string(owner) + " must be an integer expression, found " + describe_val(v));
    return v.e;
  }
  std::vector<Expr> parse_shape(std::string_view owner) {
    TokenKind close;
    if (accept(TokenKind::lbracket)) close = TokenKind::rbracket;
    else if (accept(TokenKind::lparen)) close = TokenKind::rparen;
    else fail_expected("'[' to open the shape list of " + std::string(owner));
    std::vector<Expr> dims;
    while (!at(close)) {
      dims.push_back(parse_dim(owner));
      if (!accept(TokenKind::comma)) break;
    }
    expect(close, "to close the shape list of " + std::string(owner));
    return dims;
  }
  std::vector<Expr> dims_of(const PVal& v, std::string_view what) {
    if (v.kind != PVal::Kind::list) fail(v.span, "expected a list for " + std::string(what) + ", found " + describe_val(v));
    std::vector<Expr> out;
    for (const auto& it : v.items) {
      if (it.kind != PVal::Kind::expr || !ir::as<ir::ScalarType>(it.e->type))
        fail(it.span, "an entry of " + std::string(what) + " must be an integer expression, found " + describe_val(it));
      out.push_back(it.e);
    }
    return out;
  }
  template <class E>
  E enum_kw(const PVal& v, std::string_view family, std::string_view key) {
    if (v.kind == PVal::Kind::path)
      if (auto x = enum_of<E>(v.s, family)) return *x;
    fail(v.span, "expected pl." + std::string(family) + ".<name> for " + std::string(key) + ", found " + describe_val(v));
  }

  Expr parse_memref() {
    Span s = toks_[pos_ - 1].span;
    expect(TokenKind::lparen, "to open the arguments of pl.MemRef");
    std::string base;
    bool quoted = false;
    Span bs = cur().span;
    if (at(TokenKind::string)) {
      base = advance().text;
      quoted = true;
    } else if (at(TokenKind::name) && (peek().is(TokenKind::comma) || peek().is(TokenKind::rparen))) {
      base = advance().text;
    } else if (at(TokenKind::integer)) {
      fail(bs, "the legacy pl.MemRef(addr, size, id) form is not supported; write pl.MemRef(base, offset, size)");
    } else {
      fail_expected("the base of pl.MemRef (a name or a quoted name)");
    }
    Expr offset;
    std::uint64_t size = 0;
    std::int64_t slots = 1;
    bool pinned = true;
    while (accept(TokenKind::comma)) {
      if (at(TokenKind::rparen)) break;
      if (at_name("slots") && peek().is(TokenKind::assign)) {
        advance();
        advance();
        if (!at(TokenKind::integer) || cur().int_value < 1) fail_expected("a positive integer", "for slots=");
        slots = advance().int_value;
        continue;
      }
      if (!pinned) fail_expected("')' to close pl.MemRef");
      TypeCtx tc(*this, false);
      PVal off = parse_expr();
      if (off.kind != PVal::Kind::expr || !ir::as<ir::ScalarType>(off.e->type))
        fail(off.span, "expected the byte offset of pl.MemRef, found " + describe_val(off));
      offset = off.e;
      expect(TokenKind::comma, "after the byte offset of pl.MemRef");
      if (!at(TokenKind::integer) || cur().int_value < 0) fail_expected("the size in bytes of pl.MemRef");
      size = static_cast<std::uint64_t>(advance().int_value);
      pinned = false;
    }
    expect(TokenKind::rparen, "to close pl.MemRef");
    Expr slot;
    if (accept(TokenKind::lbracket)) {
      TypeCtx tc(*this, false);
      PVal k = parse_expr();
      if (k.kind != PVal::Kind::expr || !ir::as<ir::ScalarType>(k.e->type))
        fail(k.span, "expected a slot index, found " + describe_val(k));
      slot = k.e;
      expect(TokenKind::rbracket, "to close the slot index of pl.MemRef");
    }
    Expr ptr = ptr_var(base, !quoted, bs);
    return ir::make_expr(ir::MemRef{ptr, offset, size, pinned, slots, slot},
                         ir::marker_type(ir::Marker::MemRefType), s);
  }
  Expr ptr_var(const std::string& name, bool bare, const Span& s) {
    if (!fn_) fail(s, "pl.MemRef outside a function");
    if (auto it = fn_->ptrs.find(name); it != fn_->ptrs.end()) return it->second;
    if (bare) {
      if (auto it = fn_->scope.find(name); it != fn_->scope.end()) return it->second;
    }
    Expr v = ir::make_var(name, ir::marker_type(ir::Marker::Ptr), s);
    fn_->ptrs.emplace(name, v);
    return v;
  }

  bool at_call_of(std::string_view last) const {
    // `pl.X(` / `X(` where X == last
    std::size_t i = pos_;
    if (!toks_[i].is(TokenKind::name)) return false;
    while (toks_[std::min(i + 1, toks_.size() - 1)].is(TokenKind::dot) &&
           toks_[std::min(i + 2, toks_.size() - 1)].is(TokenKind::name))
      i += 2;
    return toks_[i].text == last && toks_[std::min(i + 1, toks_.size() - 1)].is(TokenKind::lparen);
  }

  std::optional<ir::TensorView> parse_tensor_view() {
    CallArgs a;
    {
      TypeCtx tc(*this);
      a = parse_call_args("pl.TensorView");
    }
    if (!a.pos.empty()) fail(a.pos[0].span, "pl.TensorView takes keyword arguments only");
    ir::TensorView v{{}, {}, ir::TensorLayout::ND, ir::PadValue::null};
    for (std::size_t i = 0; i < a.kw.size(); ++i) {
      const auto& [k, val] = a.kw[i];
      if (k == "valid_shape") v.valid_shape = dims_of(val, "valid_shape");
      else if (k == "stride") v.stride = dims_of(val, "stride");
      else if (k == "layout") v.layout = enum_kw<ir::TensorLayout>(val, "TensorLayout", k);
      else if (k == "pad") v.pad = enum_kw<ir::PadValue>(val, "PadValue", k);
      else fail(a.kw_spans[i], "unknown keyword '" + k + "' for pl.TensorView (valid_shape, stride, layout, pad)");
    }
    return v;
  }
  ir::TileView parse_tile_view(const std::vector<Expr>& shape, std::optional<ir::MemorySpace> mem,
                               const CallArgs& a) {
    if (!a.pos.empty()) fail(a.pos[0].span, "pl.TileView takes keyword arguments only");
    ir::TileView v = ir::implicit_view(shape, mem);
    for (std::size_t i = 0; i < a.kw.size(); ++i) {
      const auto& [k, val] = a.kw[i];
      if (k == "valid_shape") v.valid_shape = dims_of(val, "valid_shape");
      else if (k == "stride") v.stride = dims_of(val, "stride");
      else if (k == "start_offset") v.start_offset = value_expr(val, "a start offset");
      else if (k == "blayout") v.blayout = enum_kw<ir::TileLayout>(val, "TileLayout", k);
      else if (k == "slayout") v.slayout = enum_kw<ir::TileLayout>(val, "TileLayout", k);
      else if (k == "pad") v.pad = enum_kw<ir::PadValue>(val, "PadValue", k);
      else if (k == "compact") v.compact = enum_kw<ir::CompactMode>(val, "CompactMode", k);
      else if (k == "fractal") {
        auto* c = val.kind == PVal::Kind::expr && val.literal ? ir::as<ir::ConstInt>(val.e) : nullptr;
        if (!c || c->value < 0) fail(val.span, "expected a non-negative integer for fractal, found " + describe_val(val));
        v.fractal = static_cast<std::uint64_t>(c->value);
      } else {
        fail(a.kw_spans[i], "unknown keyword '" + k + "' for pl.TileView");
      }
    }
    return v;
  }

  Type parse_type() {
    DepthGuard g(*this, cur().span);
    if (at(TokenKind::string)) {  // a string annotation: resolved from the value
      advance();
      return nullptr;
    }
    if (!at(TokenKind::name)) fail_expected("a type");
    Span s = cur().span;
    std::string path = parse_dotted("a type");
    auto seg = split_path(path);
    std::string_view last = seg.back();
    if (last == "Scalar") {
      bool sq = at(TokenKind::lbracket);
      if (!sq && !at(TokenKind::lparen)) fail_expected("'[' after pl.Scalar");
      advance();
      ir::DataType dt = parse_dtype("in pl.Scalar");
      expect(sq ? TokenKind::rbracket : TokenKind::rparen, "to close pl.Scalar");
      return ir::scalar_type(dt);
    }
    if (last == "Tensor" || last == "DistributedTensor") return parse_tensor_type(last == "DistributedTensor", s);
    if (last == "Tile") return parse_tile_type(s);
    if (last == "Tuple" || path == "tuple") {
      expect(TokenKind::lbracket, "after " + path);
      std::vector<Type> els;
      if (at(TokenKind::lparen) && peek().is(TokenKind::rparen)) {
        advance();
        advance();
      } else {
        while (!at(TokenKind::rbracket)) {
          Span es = cur().span;
          Type t = parse_type();
          if (!t) fail(es, "a string is not a type inside " + path);
          els.push_back(t);
          if (!accept(TokenKind::comma)) break;
        }
      }
      expect(TokenKind::rbracket, "to close " + path);
      return ir::make_type(ir::TupleType{std::move(els)});
    }
    if (last == "Array") {
      expect(TokenKind::lbracket, "after pl.Array");
      if (!at(TokenKind::integer) || cur().int_value < 0) fail_expected("the extent of pl.Array (an integer)");
      std::int64_t n = advance().int_value;
      expect(TokenKind::comma, "after the extent of pl.Array");
      ir::DataType dt = parse_dtype("in pl.Array");
      accept(TokenKind::comma);
      expect(TokenKind::rbracket, "to close pl.Array");
      return ir::make_type(ir::ArrayType{dt, n});
    }
    static const std::pair<std::string_view, ir::Marker> markers[] = {
        {"Ptr", ir::Marker::Ptr},
        {"MemRefType", ir::Marker::MemRefType},
        {"WindowBufferType", ir::Marker::WindowBufferType},
        {"CommCtxType", ir::Marker::CommCtxType},
        {"PrefetchAsyncContext", ir::Marker::PrefetchAsyncContext},
        {"AsyncEvent", ir::Marker::AsyncEvent},
        {"AsyncSession", ir::Marker::AsyncSession}};
    for (const auto& [n, m] : markers)
      if (last == n) return ir::marker_type(m);
    if (last == "UnknownType") return ir::unknown_type();
    if (dtype_of(path))
      fail(s, "incomplete type annotation '" + path + "'; write pl.Scalar[" + path + "]");
    if (last == "Out" || last == "InOut")
      fail(s, path + "[...] is only allowed on a function parameter");
    fail(s, "unknown type '" + path + "'");
  }
  // Every consumer indexes a view's valid_shape and stride by the shape's axes.
  void check_view_rank(const std::vector<Expr>& valid, const std::vector<Expr>& stride,
                       const std::vector<Expr>& shape, std::string_view owner, std::string_view view,
                       const Span& s) const {
    auto check = [&](const std::vector<Expr>& list, std::string_view field) {
      if (!list.empty() && list.size() != shape.size())
        fail(s, std::string(view) + " " + std::string(field) + " has " + std::to_string(list.size()) +
                    " entries but the " + std::string(owner) + " shape has " + std::to_string(shape.size()) +
                    "; give one per axis");
    };
    check(valid, "valid_shape");
    check(stride, "stride");
  }
  Type parse_tensor_type(bool distributed, const Span& s) {
    std::string owner = distributed ? "pld.DistributedTensor" : "pl.Tensor";
    if (at(TokenKind::lparen)) {  // legacy pl.Tensor((64, 128), pl.FP16)
      advance();
      auto shape = parse_shape(owner);
      expect(TokenKind::comma, "after the shape of " + owner);
      ir::DataType dt = parse_dtype("in " + owner);
      accept(TokenKind::comma);
      expect(TokenKind::rparen, "to close " + owner);
      return ir::make_tensor_type(std::move(shape), dt, std::nullopt, nullptr, distributed);
    }
    expect(TokenKind::lbracket, "after " + owner);
    auto shape = parse_shape(owner);
    expect(TokenKind::comma, "after the shape of " + owner);
    ir::DataType dt = parse_dtype("in " + owner);
    std::optional<ir::TensorView> view;
    Expr memref;
    int slot = 2;
    while (accept(TokenKind::comma)) {
      if (at(TokenKind::rbracket)) break;
      ++slot;
      Span ps = cur().span;
      if (at(TokenKind::string) && distributed) {  // "window_buffer=<name>": a back-reference only
        advance();
        continue;
      }
      if (at_call_of("MemRef")) {
        if (memref) fail(ps, owner + " has two pl.MemRef parts");
        parse_dotted("pl.MemRef");
        memref = parse_memref();
        continue;
      }
      if (slot > 3 || memref) fail(ps, "expected a pl.MemRef as the fourth part of " + owner + ", found " + describe(cur()));
      if (at_call_of("TensorView")) {
        parse_dotted("pl.TensorView");
        view = parse_tensor_view();
        continue;
      }
      if (!at(TokenKind::name)) fail_expected("a pl.TensorView, a layout or a pl.MemRef", "in " + owner);
      std::string p = parse_dotted("a layout");
      auto ps2 = split_path(p);
      auto lay = ir::enum_from_name<ir::TensorLayout>(ps2.back());
      if (!lay || (ps2.size() > 2 && ps2[ps2.size() - 2] != "TensorLayout"))
        fail(ps, "expected a pl.TensorView, a layout or a pl.MemRef in " + owner + ", found '" + p + "'");
      if (*lay == ir::TensorLayout::DN)
        fail(ps, "a bare DN layout is not accepted; write pl.TensorView(stride=[...], layout=pl.TensorLayout.DN)");
      view = ir::TensorView{{}, {}, *lay, ir::PadValue::null};
    }
    expect(TokenKind::rbracket, "to close " + owner);
    if (view) check_view_rank(view->valid_shape, view->stride, shape, owner, "pl.TensorView", s);
    return ir::make_tensor_type(std::move(shape), dt, std::move(view), std::move(memref), distributed);
  }
  Type parse_tile_type(const Span& s) {
    expect(TokenKind::lbracket, "after pl.Tile");
    auto shape = parse_shape("pl.Tile");
    expect(TokenKind::comma, "after the shape of pl.Tile");
    ir::DataType dt = parse_dtype("in pl.Tile");
    std::optional<ir::MemorySpace> mem;
    Expr memref;
    std::optional<CallArgs> view_args;
    Span view_span, memref_span;
    while (accept(TokenKind::comma)) {
      if (at(TokenKind::rbracket)) break;
      Span ps = cur().span;
      if (at_call_of("MemRef")) {
        if (memref) fail(ps, "pl.Tile has two pl.MemRef parts");
        parse_dotted("pl.MemRef");
        memref = parse_memref();
        memref_span = ps;
        continue;
      }
      if (at_call_of("TileView")) {
        if (view_args) fail(ps, "pl.Tile has two pl.TileView parts");
        parse_dotted("pl.TileView");
        TypeCtx tc(*this);
        view_args = parse_call_args("pl.TileView");
        view_span = ps;
        continue;
      }
      if (!at(TokenKind::name)) fail_expected("a memory space, a pl.MemRef or a pl.TileView", "in pl.Tile");
      std::string p = parse_dotted("a memory space");
      auto m = memory_space_of(p);
      if (m && *m != ir::MemorySpace::ScalarLocal) {
        if (mem) fail(ps, "pl.Tile has two memory spaces");
        mem = m;
        continue;
      }
      if (enum_of<ir::TensorLayout>(p, "TensorLayout") || ir::enum_from_name<ir::TensorLayout>(split_path(p).back()))
        fail(ps, "a tensor layout is not allowed in pl.Tile; use pl.TileView(blayout=..., slayout=...)");
      fail(ps, "expected a memory space such as pl.Mem.Vec, a pl.MemRef or a pl.TileView in pl.Tile, found '" + p + "'");
    }
    expect(TokenKind::rbracket, "to close the pl.Tile annotation");
    if (memref && !mem) fail(memref_span, "a pl.Tile with a pl.MemRef must also name its memory space, e.g. pl.Mem.Vec");
    std::optional<ir::TileView> view;
    if (view_args) {
      view = parse_tile_view(shape, mem, *view_args);
      check_view_rank(view->valid_shape, view->stride, shape, "pl.Tile", "pl.TileView", view_span);
    }
    (void)s;
    return ir::make_tile_type(std::move(shape), dt, std::move(view), mem, std::move(memref));
  }

  // ---- statements --------------------------------------------------------------------------
  static Stmt with_comments(const Stmt& s, std::vector<std::string> lines) {
    if (lines.empty() || !s) return s;
    std::vector<std::string> all = std::move(lines);
    all.insert(all.end(), s->comments.lines.begin(), s->comments.lines.end());
    return std::make_shared<const ir::StmtNode>(ir::StmtNode{s->v, s->span, ir::Comments{std::move(all)}});
  }

  // After the ':' of a compound statement: an indented block or one simple line.
  std::vector<Stmt> parse_suite(std::string_view what) {
    std::vector<Stmt> out;
    ++nest_;  // an error ends the whole parse, so no unwinding is needed
    if (accept(TokenKind::newline)) {
      DepthGuard g(*this, cur().span);
      if (!at(TokenKind::indent)) fail_expected("an indented block", "for the body of " + std::string(what));
      advance();
      block_rest(out);
    } else {
      parse_simple_line(out);
    }
    --nest_;
    return out;
  }
  void block_rest(std::vector<Stmt>& out) {
    while (!at(TokenKind::dedent) && !at(TokenKind::end)) parse_statement(out);
    expect(TokenKind::dedent, "to end the block");
  }

  void parse_statement(std::vector<Stmt>& out) {
    std::size_t first = pos_;
    std::vector<std::string> comments = take_comments(first);
    comments.insert(comments.begin(), carried_.begin(), carried_.end());
    carried_.clear();
    std::size_t before = out.size();
    const Token& t = cur();
    if (t.is_name("if")) {
      parse_if(out);
    } else if (t.is_name("for")) {
      parse_for(out);
    } else if (t.is_name("while")) {
      parse_while(out);
    } else if (t.is_name("with")) {
      parse_with(out);
    } else if (t.is_name("def") || t.is_name("class")) {
      fail(t.span, "nested '" + t.text + "' definitions are not supported");
    } else if (t.is_name("elif") || t.is_name("else")) {
      fail(t.span, "'" + t.text + "' without a matching 'if'");
    } else if (t.is(TokenKind::indent)) {
      fail(t.span, "unexpected indent");
    } else {
      parse_simple_line(out);
    }
    if (out.size() > before) out[before] = with_comments(out[before], std::move(comments));
    else carried_.insert(carried_.end(), comments.begin(), comments.end());
  }
  void parse_simple_line(std::vector<Stmt>& out) {
    for (;;) {
      std::size_t before = out.size();
      parse_simple(out);
      if (out.size() > before && !carried_.empty()) {
        out[before] = with_comments(out[before], std::move(carried_));
        carried_.clear();
      }
      if (!accept(TokenKind::semicolon)) break;
      if (at(TokenKind::newline) || at(TokenKind::end)) break;
    }
    expect_line_end("after the statement");
  }

  // Scans the logical line for an assignment at bracket depth 0.
  TokenKind line_assign_kind() const {
    int depth = 0;
    for (std::size_t i = pos_; i < toks_.size(); ++i) {
      TokenKind k = toks_[i].kind;
      if (k == TokenKind::lparen || k == TokenKind::lbracket || k == TokenKind::lbrace) ++depth;
      else if (k == TokenKind::rparen || k == TokenKind::rbracket || k == TokenKind::rbrace) --depth;
      else if (depth <= 0 && (k == TokenKind::newline || k == TokenKind::semicolon || k == TokenKind::end ||
                              k == TokenKind::indent || k == TokenKind::dedent))
        return TokenKind::end;
      else if (depth == 0 && (k == TokenKind::assign || (k >= TokenKind::plus_assign && k <= TokenKind::rshift_assign)))
        return k;
    }
    return TokenKind::end;
  }

  void parse_simple(std::vector<Stmt>& out) {
    const Token& t = cur();
    Span s = t.span;
    if (t.is_name("pass")) {
      advance();
      return;
    }
    if (t.is(TokenKind::ellipsis)) {
      advance();
      return;
    }
    if (t.is_name("break") || t.is_name("continue")) {
      bool brk = t.text == "break";
      advance();
      if (brk) out.push_back(ir::make_stmt(ir::Break{}, s));
      else out.push_back(ir::make_stmt(ir::Continue{}, s));
      return;
    }
    if (t.is_name("return")) {
      advance();
      std::vector<Expr> vals;
      if (!at(TokenKind::newline) && !at(TokenKind::semicolon) && !at(TokenKind::end)) {
        std::vector<PVal> vs = parse_expr_list();
        if (vs.size() == 1 && vs[0].kind == PVal::Kind::list && vs[0].paren_tuple) vs = vs[0].items;
        for (const auto& v : vs) vals.push_back(value_expr(v, "a return value"));
      }
      out.push_back(ir::make_stmt(ir::Return{std::move(vals)}, s));
      return;
    }
    if (is_python_keyword(t.text) && t.is(TokenKind::name) && t.text != "None" && t.text != "True" &&
        t.text != "False" && t.text != "not")
      fail(s, "'" + t.text + "' statements are not supported");
    if (t.is(TokenKind::name) && peek().is(TokenKind::colon)) {
      parse_annotated_assign(out);
      return;
    }
    TokenKind ak = line_assign_kind();
    if (ak == TokenKind::assign) {
      parse_assign(out);
      return;
    }
    if (ak != TokenKind::end) {
      parse_aug_assign(out);
      return;
    }
    parse_expr_stmt(out);
  }
  std::vector<PVal> parse_expr_list() {
    std::vector<PVal> vs;
    vs.push_back(parse_expr());
    while (accept(TokenKind::comma)) {
      if (at(TokenKind::newline) || at(TokenKind::end) || at(TokenKind::semicolon) || at(TokenKind::assign)) break;
      vs.push_back(parse_expr());
    }
    return vs;
  }

  bool at_yield_call() const { return at_path("pl", "yield_") && peek(3).is(TokenKind::lparen); }
  std::vector<Expr> parse_yield_values() {
    parse_dotted("pl.yield_");
    CallArgs a = parse_call_args("pl.yield_");
    no_kwargs(a, "pl.yield_");
    std::vector<Expr> vals;
    for (const auto& v : a.pos) vals.push_back(value_expr(v, "a yielded value"));
    return vals;
  }
  void record_yield(std::vector<const Token*> names, Type ann, const std::vector<Expr>& vals, const Span& s) {
    if (yields_.empty()) fail(s, "pl.yield_ with targets must be inside a for, while or if body");
    if (!names.empty() && names.size() != vals.size())
      fail(s, std::to_string(names.size()) + " targets cannot receive " + std::to_string(vals.size()) +
                  " yielded values");
    YieldRec r;
    r.span = s;
    for (std::size_t i = 0; i < names.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (names[i]->text == names[j]->text)
          fail(names[i]->span, "'" + names[i]->text + "' is assigned twice by one pl.yield_");
    for (const Token* n : names) {
      r.names.push_back(n->text);
      r.spans.push_back(n->span);
      r.ann.push_back(ann);
    }
    for (const auto& v : vals) r.values.push_back(v->type);
    yields_.back().recs.push_back(std::move(r));
  }

  // The Yield that closes a block: its last statement, looking through trailing pl.scope blocks
  // (the printer gives only that one the assignment form, §3.3, §3.7).
  static const ir::StmtNode* closing_yield(const std::vector<Stmt>& body) {
    if (body.empty()) return nullptr;
    const Stmt& last = body.back();
    if (auto* sc = ir::as<ir::Scope>(last);
        sc && (sc->kind == ir::ScopeKind::scope || sc->kind == ir::ScopeKind::manual_scope))
      return closing_yield(ir::body_stmts(sc->body));
    return ir::as<ir::Yield>(last) ? last.get() : nullptr;
  }
  // Marks the closing yield of `body` among the records, and rejects targets anywhere else:
  // a yield in the middle of a block prints bare, so its targets would be lost.
  void check_closing_yields(YieldCtx& c, const std::vector<Stmt>& body, std::string_view block) const {
    const ir::StmtNode* tail = closing_yield(body);
    for (auto& r : c.recs) {
      r.closing = tail && same_start(tail->span, r.span);
      if (!r.names.empty() && !r.closing)
        fail(r.span, "pl.yield_ with targets must be the last statement of " + std::string(block) +
                         "; a yield elsewhere cannot assign names");
    }
  }
  static std::string target_list(const std::vector<std::string>& names) {
    std::string o = "(";
    for (std::size_t i = 0; i < names.size(); ++i) o += (i ? ", " : "") + names[i];
    return o + ")";
  }

  void parse_annotated_assign(std::vector<Stmt>& out) {
    const Token& name = advance();
    Span s = name.span;
    advance();  // ':'
    Span ann_span = cur().span;
    Type ann;
    {
      TypeCtx tc(*this);
      ann = parse_type();
    }
    if (!at(TokenKind::assign))
      fail_expected("'='", "after the annotation of '" + name.text + "' (declarations without a value are not supported)");
    advance();
    if (at_yield_call()) {
      std::vector<Expr> vals = parse_yield_values();
      if (ann && vals.size() == 1) check_compatible(ann, vals[0]->type, ann_span, name.text);
      record_yield({&name}, ann, vals, s);
      out.push_back(ir::make_stmt(ir::Yield{std::move(vals)}, s));
      return;
    }
    rhs_tok_ = pos_;
    while (toks_[rhs_tok_].is(TokenKind::lparen) && rhs_tok_ + 1 < toks_.size()) ++rhs_tok_;
    rhs_ann_ = ann;
    PVal rhs = parse_expr();
    rhs_ann_ = nullptr;
    finish_assign(name, ann, ann_span, rhs, s, out);
  }
  void finish_assign(const Token& name, Type ann, const Span& ann_span, const PVal& rhs, const Span& s,
                     std::vector<Stmt>& out) {
    Expr v = value_expr(rhs, "a value on the right of '='");
    if (!ann && rhs.literal) {
      // `x = 1` on an existing scalar x takes x's dtype, as the annotation the printer writes would.
      auto it = fn_->scope.find(name.text);
      if (it != fn_->scope.end() && ir::as<ir::Var>(it->second) && ir::as<ir::ScalarType>(it->second->type))
        ann = it->second->type;
    }
    v = name_window_buffer(v, name.text);
    if (ann) {
      check_compatible(ann, v->type, ann_span, name.text);
      if (ir::as<ir::Call>(v)) {
        v = ir::make_expr(v->v, ann, v->span);
      } else if (rhs.literal && ir::as<ir::ConstInt>(v) && ir::as<ir::ScalarType>(ann)) {
        ir::DataType dt = ir::as<ir::ScalarType>(ann)->dtype;
        if (ir::is_float(dt)) v = ir::make_float(static_cast<double>(ir::as<ir::ConstInt>(v)->value), dt, v->span);
        else if (ir::is_integer(dt)) v = ir::make_int(ir::as<ir::ConstInt>(v)->value, dt, v->span);
      }
    }
    Type t = ann ? ann : v->type;
    Expr var = define(name, t, ir::as<ir::MarkerType>(t) && ir::as<ir::MarkerType>(t)->kind == ir::Marker::Ptr);
    out.push_back(ir::make_stmt(ir::Assign{var, v}, s));
  }
  // `w = pld.tensor.alloc_window_buffer(...)`: the printer leaves out a `name` equal to the
  // assigned name (§4.5), so the assignment supplies it back.
  Expr name_window_buffer(const Expr& v, const std::string& lhs) const {
    auto* c = ir::as<ir::Call>(v);
    if (!c || !c->callee.function.empty() || ir::op_name(c->callee.op) != "pld.tensor.alloc_window_buffer" ||
        ir::find_kwarg(c->kwargs, "name"))
      return v;
    ir::Call named = *c;
    named.kwargs.emplace_back("name", lhs);
    return ir::make_expr(std::move(named), v->type, v->span);
  }
  void check_compatible(const Type& ann, const Type& val, const Span& s, const std::string& name) const {
    if (!ann || !val || ir::as<ir::UnknownType>(ann) || ir::as<ir::UnknownType>(val)) return;
    if (ir::as<ir::MarkerType>(ann) || ir::as<ir::MarkerType>(val)) return;
    bool bad = type_kind(ann) != type_kind(val);
    if (!bad) {
      if (auto* a = ir::as<ir::TileType>(ann)) bad = a->dtype != ir::as<ir::TileType>(val)->dtype;
      else if (auto* b = ir::as<ir::TensorType>(ann)) bad = b->dtype != ir::as<ir::TensorType>(val)->dtype;
      else if (auto* c = ir::as<ir::ScalarType>(ann)) {
        ir::DataType vd = ir::as<ir::ScalarType>(val)->dtype;
        bad = c->dtype != vd && vd != ir::DataType::INDEX && !ir::same_index_class(c->dtype, vd);
      }
    }
    if (bad)
      fail(s, "the annotation of '" + name + "' is " + type_text(ann) + ", but its value has type " +
                  type_text(val));
  }
  // One Var per name per function: plain reassignment reuses the Var (non-strict SSA).
  Expr define(const Token& name, const Type& t, bool ptr) {
    if (ptr) {
      if (auto it = fn_->ptrs.find(name.text); it != fn_->ptrs.end()) {
        fn_->scope[name.text] = it->second;
        return it->second;
      }
    }
    if (auto it = fn_->scope.find(name.text); it != fn_->scope.end() && ir::as<ir::Var>(it->second)) {
      // The Var is reused, so its one type must fit every value it is given: the printer
      // writes that type as the annotation of each assignment (upstream rejects a change too).
      const Type& old = it->second->type;
      if (!same_type(old, t)) {
        std::string was = type_text(old), now = type_text(t);
        fail(name.span, "'" + name.text + "' was defined with type " + was +
                            " and cannot be reassigned a value of type " + now +
                            (was == now ? " (their views or buffers differ)" : "") + "; use a new name");
      }
      return it->second;
    }
    Expr v = ir::make_var(name.text, t, name.span);
    fn_->scope[name.text] = v;
    if (ptr) fn_->ptrs[name.text] = v;
    return v;
  }
  Expr fresh(const std::string& name, const Type& t, const Span& s) {
    Expr v = ir::make_var(name, t, s);
    fn_->scope[name] = v;
    return v;
  }

  void parse_assign(std::vector<Stmt>& out) {
    Span s = cur().span;
    std::vector<const Token*> names;
    bool paren = accept(TokenKind::lparen);
    for (;;) {
      if (!at(TokenKind::name) || is_python_keyword(cur().text))
        fail_expected("a name to assign to", "(only names can be assignment targets)");
      names.push_back(&advance());
      if (!accept(TokenKind::comma)) break;
      if (at(TokenKind::assign) || at(TokenKind::rparen)) break;
    }
    bool tuple_target = names.size() > 1 || toks_[pos_ - 1].is(TokenKind::comma);
    if (paren) expect(TokenKind::rparen, "to close the assignment targets");
    if (!at(TokenKind::assign)) fail_expected("'='", "after the assignment targets (only names can be assigned)");
    advance();
    if (at_yield_call()) {
      std::vector<Expr> vals = parse_yield_values();
      record_yield(names, nullptr, vals, s);
      out.push_back(ir::make_stmt(ir::Yield{std::move(vals)}, s));
      return;
    }
    if (line_assign_kind() == TokenKind::assign) fail(cur().span, "chained assignment 'a = b = c' is not supported");
    std::vector<PVal> rhs = parse_expr_list();
    PVal value;
    if (rhs.size() == 1) {
      value = std::move(rhs[0]);
    } else {
      value.kind = PVal::Kind::list;
      value.paren_tuple = true;
      value.span = rhs[0].span;
      value.items = std::move(rhs);
    }
    if (!tuple_target) {
      finish_assign(*names[0], nullptr, s, value, s, out);
      return;
    }
    // `a, b = f(...)`: a temporary tuple and one TupleGetItem per target (§6.1).
    Expr v = value_expr(value, "a tuple value");
    auto* tt = ir::as<ir::TupleType>(v->type);
    if (!tt) fail(value.span, "cannot unpack a value of type " + type_text(v->type) + " into " +
                                  std::to_string(names.size()) + " names");
    if (tt->elements.size() != names.size())
      fail(value.span, "cannot unpack a tuple of " + std::to_string(tt->elements.size()) + " values into " +
                           std::to_string(names.size()) + " names");
    auto* c = ir::as<ir::Call>(v);
    bool submit = c && c->callee.op && !c->callee.function.empty();
    Expr tmp = ir::make_var(submit ? "_submit_tmp" : "_tuple_tmp", v->type, s);
    out.push_back(ir::make_stmt(ir::Assign{tmp, v}, s));
    for (std::size_t i = 0; i < names.size(); ++i) {
      Expr item = ir::make_expr(ir::TupleGetItem{tmp, static_cast<std::int64_t>(i)}, tt->elements[i], s);
      Expr var = define(*names[i], item->type, false);
      out.push_back(ir::make_stmt(ir::Assign{var, item}, names[i]->span));
    }
  }
  void parse_aug_assign(std::vector<Stmt>& out) {
    if (!at(TokenKind::name)) fail_expected("a name", "before an augmented assignment");
    const Token& name = advance();
    const Token& op = advance();
    using B = ir::BinaryOp;
    std::optional<B> b;
    switch (op.kind) {
      case TokenKind::plus_assign: b = B::Add; break;
      case TokenKind::minus_assign: b = B::Sub; break;
      case TokenKind::star_assign: b = B::Mul; break;
      case TokenKind::slash_assign: b = B::FloatDiv; break;
      case TokenKind::double_slash_assign: b = B::FloorDiv; break;
      case TokenKind::percent_assign: b = B::FloorMod; break;
      case TokenKind::lshift_assign: b = B::Shl; break;
      case TokenKind::rshift_assign: b = B::Shr; break;
      default: fail(op.span, "augmented assignment '" + op.text + "' is not supported; expected a name before '='");
    }
    PVal l = of(resolve_name(name.text, name.span), name.span);
    PVal r = parse_expr();
    PVal v = of(make_binary(*b, op.text.substr(0, op.text.size() - 1), l, r, name.span), name.span);
    finish_assign(name, nullptr, name.span, v, name.span, out);
  }
  void parse_expr_stmt(std::vector<Stmt>& out) {
    Span s = cur().span;
    if (at_yield_call()) {
      if (nest_ == 0)
        fail(s, "pl.yield_ at the top of a function body reads back as return; write return instead");
      std::vector<Expr> vals = parse_yield_values();
      if (!yields_.empty()) record_yield({}, nullptr, vals, s);
      out.push_back(ir::make_stmt(ir::Yield{std::move(vals)}, s));
      return;
    }
    if (at_path("pl", "func_attr"))
      fail(s, "pl.func_attr must be the first statement of the function body");
    if (at_path("pl", "static_print") || at_path("pl", "static_assert") || at_path("pl", "dump_tag")) {
      parse_dotted("a call");  // compile-time only upstream: no IR
      parse_call_args("this call");
      return;
    }
    if (at(TokenKind::string)) {  // a docstring: kept as the next statement's comment
      std::string text;
      while (at(TokenKind::string)) text += advance().text;
      std::size_t b = 0;
      for (std::size_t i = 0; i <= text.size(); ++i)
        if (i == text.size() || text[i] == '\n') {
          // A comment line cannot keep a final '\r': the reader takes "\r\n" as the line end.
          std::size_t e = i > b && text[i - 1] == '\r' ? i - 1 : i;
          carried_.push_back(text.substr(b, e - b));
          b = i + 1;
        }
      return;
    }
    eval_tok_ = pos_;
    while (toks_[eval_tok_].is(TokenKind::lparen) && eval_tok_ + 1 < toks_.size()) ++eval_tok_;
    PVal v = parse_expr();
    eval_tok_ = std::numeric_limits<std::size_t>::max();
    if (at(TokenKind::comma)) fail(cur().span, "a tuple is not a statement");
    out.push_back(ir::make_stmt(ir::Eval{value_expr(v, "an expression statement")}, s));
  }

  Expr bool_cond(const PVal& v, std::string_view what) {
    Expr e = value_expr(v, what);
    auto* st = ir::as<ir::ScalarType>(e->type);
    if (!st || st->dtype != ir::DataType::BOOL)
      fail(v.span, std::string(what) + " must be a pl.BOOL scalar, found a value of type " + type_text(e->type));
    return e;
  }

  void parse_if(std::vector<Stmt>& out) {
    DepthGuard g(*this, cur().span);
    Span s = advance().span;  // 'if' or 'elif'
    Expr cond = bool_cond(parse_expr(), "an if condition");
    expect(TokenKind::colon, "after the if condition");
    yields_.push_back(YieldCtx{});
    std::vector<Stmt> then_body = parse_suite("if");
    YieldCtx then_ctx = std::move(yields_.back());
    yields_.pop_back();
    Stmt else_body;
    YieldCtx else_ctx;
    if (at_name("elif")) {
      yields_.push_back(YieldCtx{});
      std::vector<Stmt> e;
      parse_if(e);
      else_ctx = std::move(yields_.back());
      yields_.pop_back();
      else_body = ir::make_seq(std::move(e), s);
    } else if (at_name("else")) {
      advance();
      expect(TokenKind::colon, "after 'else'");
      yields_.push_back(YieldCtx{});
      else_body = ir::make_seq(parse_suite("else"), s);
      else_ctx = std::move(yields_.back());
      yields_.pop_back();
    }
    // Return vars (§3.6): the names the branches' closing yields assign. The printer writes
    // one target list for both branches, so the branches must agree on it.
    check_closing_yields(then_ctx, then_body, "an if branch");
    check_closing_yields(else_ctx, else_body ? ir::body_stmts(else_body) : std::vector<Stmt>{}, "an else branch");
    const YieldRec* named = nullptr;
    std::vector<Type> types;
    for (const YieldCtx* c : {&then_ctx, &else_ctx})
      for (const auto& r : c->recs) {
        if (r.names.empty()) continue;
        if (!named) {
          named = &r;
          for (std::size_t i = 0; i < r.names.size(); ++i) types.push_back(r.ann[i] ? r.ann[i] : r.values[i]);
        } else if (r.names != named->names) {
          fail(r.span, "this branch yields to " + target_list(r.names) + " but the other one to " +
                           target_list(named->names) + "; both branches of an if must yield to the same names");
        } else {
          for (std::size_t i = 0; i < r.names.size(); ++i)
            if (r.ann[i]) types[i] = r.ann[i];
        }
      }
    std::vector<Expr> rvs;
    if (named) {
      for (const YieldCtx* c : {&then_ctx, &else_ctx})
        for (const auto& r : c->recs)
          if (r.closing && r.values.size() != named->names.size())
            fail(r.span, "this branch yields " + std::to_string(r.values.size()) + " values but the if assigns " +
                             std::to_string(named->names.size()) + " " + target_list(named->names));
      for (std::size_t i = 0; i < named->names.size(); ++i)
        rvs.push_back(fresh(named->names[i], types[i], named->spans[i]));
    }
    out.push_back(ir::make_stmt(ir::If{cond, ir::make_seq(std::move(then_body), s), else_body, std::move(rvs)}, s));
  }

  Target parse_target_atom() {
    DepthGuard g(*this, cur().span);
    Target t;
    t.span = cur().span;
    if (at(TokenKind::name) && !is_python_keyword(cur().text)) {
      t.name = advance().text;
      return t;
    }
    if (accept(TokenKind::lparen)) {
      if (accept(TokenKind::rparen)) {
        t.is_tuple = true;
        return t;
      }
      Target inner = parse_target_list(TokenKind::rparen);
      expect(TokenKind::rparen, "to close the loop target");
      return inner;
    }
    fail_expected("a loop target name");
  }
  Target parse_target_list(TokenKind stop) {
    Span s = cur().span;
    Target first = parse_target_atom();
    if (!at(TokenKind::comma)) return first;
    Target t;
    t.is_tuple = true;
    t.span = s;
    t.items.push_back(std::move(first));
    while (accept(TokenKind::comma)) {
      if (at(stop) || at_name("in")) break;
      t.items.push_back(parse_target_atom());
    }
    return t;
  }

  std::vector<Expr> init_values(const PVal* v) {
    std::vector<Expr> out;
    if (!v) return out;
    if (v->kind != PVal::Kind::list) fail(v->span, "init_values must be a tuple or list, found " + describe_val(*v));
    for (const auto& it : v->items) out.push_back(value_expr(it, "an init value"));
    return out;
  }
  std::vector<Expr> make_iter_args(const std::vector<Target>& names, const std::vector<Expr>& inits,
                                   const Span& s) {
    if (names.size() != inits.size())
      fail(s, "the loop carries " + std::to_string(names.size()) + " values but init_values has " +
                  std::to_string(inits.size()));
    std::vector<Expr> out;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i].is_tuple) fail(names[i].span, "expected a name for a loop-carried value");
      Expr ia = ir::make_iter_arg(names[i].name, inits[i]->type, inits[i], names[i].span);
      fn_->scope[names[i].name] = ia;
      out.push_back(ia);
    }
    return out;
  }
  std::vector<Expr> loop_return_vars(const YieldCtx& c, const std::vector<Expr>& iter_args) {
    const YieldRec* named = nullptr;
    for (const auto& r : c.recs) {
      if (r.values.size() != iter_args.size())
        fail(r.span, "pl.yield_ yields " + std::to_string(r.values.size()) + " values but the loop carries " +
                         std::to_string(iter_args.size()));
      if (!named && !r.names.empty()) named = &r;
    }
    std::vector<Expr> rvs;
    for (std::size_t i = 0; i < iter_args.size(); ++i) {
      std::string n = named ? named->names[i] : std::string(ir::name_hint(iter_args[i])) + "_out";
      Span sp = named ? named->spans[i] : iter_args[i]->span;
      rvs.push_back(ir::make_var(n, iter_args[i]->type, sp));
    }
    for (const auto& rv : rvs) fn_->scope[std::string(ir::name_hint(rv))] = rv;
    return rvs;
  }

  void parse_for(std::vector<Stmt>& out) {
    DepthGuard g(*this, cur().span);
    Span s = advance().span;
    Target tgt = parse_target_list(TokenKind::end);
    expect_keyword("in", "after the loop target");
    if (!at_name("pl")) fail_expected("pl.range, pl.parallel, pl.unroll, pl.pipeline, pl.while_, pl.spmd or pl.split_aiv");
    Span is = cur().span;
    std::string it = parse_dotted("a loop iterator");
    std::string kind = it.substr(it.find('.') == std::string::npos ? 0 : it.find('.') + 1);
    if (kind == "while_") return parse_while_loop(tgt, s, out);
    if (kind == "spmd" || kind == "split_aiv") return parse_scope_loop(tgt, kind, s, out);
    auto fk = ir::enum_from_name<ir::ForKind>(kind);
    if (!fk || split_path(it).size() != 2)
      fail(is, "unknown loop iterator '" + it + "'; expected pl.range, pl.parallel, pl.unroll, pl.pipeline, "
                                               "pl.while_, pl.spmd or pl.split_aiv");
    CallArgs a = parse_call_args(it);
    arity(a, 1, 3, it, is);
    std::vector<Expr> b;
    for (const auto& p : a.pos) {
      Expr e = value_expr(p, "a loop bound");
      auto* st = ir::as<ir::ScalarType>(e->type);
      if (!st || !ir::is_integer(st->dtype)) fail(p.span, "a loop bound must be an integer scalar, found " + describe_val(p));
      b.push_back(e);
    }
    Expr start = b.size() >= 2 ? b[0] : ir::make_int(0, ir::DataType::INDEX, is);
    Expr stop = b.size() >= 2 ? b[1] : b[0];
    Expr step = b.size() == 3 ? b[2] : ir::make_int(1, ir::DataType::INDEX, is);
    ir::Kwargs attrs;
    const PVal* inits = nullptr;
    for (std::size_t i = 0; i < a.kw.size(); ++i) {
      const auto& [k, v] = a.kw[i];
      if (k == "init_values") {
        inits = &v;
      } else if (k == "stage") {
        auto* c = v.kind == PVal::Kind::expr && v.literal ? ir::as<ir::ConstInt>(v.e) : nullptr;
        if (!c || c->value < 1) fail(v.span, "stage= must be an integer literal of at least 1");
        if (*fk != ir::ForKind::pipeline) fail(a.kw_spans[i], "stage= is only allowed on pl.pipeline");
        attrs.emplace(attrs.begin(), "pipeline_stages", c->value);
      } else if (k == "attrs") {
        for (auto& kv : attrs_dict(v)) attrs.push_back(std::move(kv));
      } else {
        fail(a.kw_spans[i], "unknown keyword '" + k + "' for " + it + " (init_values, stage, attrs)");
      }
    }
    std::vector<Expr> init = init_values(inits);
    expect(TokenKind::colon, "after the loop header");
    const Target* loop_name = &tgt;
    std::vector<Target> carried;
    if (tgt.is_tuple) {
      if (tgt.items.size() != 2 || tgt.items[0].is_tuple || !tgt.items[1].is_tuple)
        fail(tgt.span, "expected 'i' or 'i, (a, b)' as the loop target");
      loop_name = &tgt.items[0];
      carried = tgt.items[1].items;
    }
    if (carried.empty() && !init.empty()) fail(tgt.span, "init_values needs loop-carried names: 'for i, (a,) in ...'");
    if (*fk == ir::ForKind::unroll && !init.empty()) fail(is, "pl.unroll does not take init_values");
    auto is64 = [](const Expr& e) {
      auto* st = ir::as<ir::ScalarType>(e->type);
      return st && st->dtype == ir::DataType::INT64;
    };
    ir::DataType ldt = is64(start) || is64(stop) || is64(step) ? ir::DataType::INT64 : ir::DataType::INDEX;
    Expr lv = fresh(loop_name->name, ir::scalar_type(ldt), loop_name->span);
    std::vector<Expr> ias = make_iter_args(carried, init, tgt.span);
    yields_.push_back(YieldCtx{});
    std::vector<Stmt> body = parse_suite("for");
    YieldCtx ctx = std::move(yields_.back());
    yields_.pop_back();
    check_closing_yields(ctx, body, "a for body");
    std::vector<Expr> rvs = loop_return_vars(ctx, ias);
    out.push_back(ir::make_stmt(ir::For{lv, start, stop, step, ias, ir::make_seq(std::move(body), s), std::move(rvs),
                                        *fk, std::move(attrs)},
                                s));
  }
  void parse_while_loop(const Target& tgt, const Span& s, std::vector<Stmt>& out) {
    CallArgs a = parse_call_args("pl.while_");
    if (!a.pos.empty()) fail(a.pos[0].span, "pl.while_ takes only init_values=");
    const PVal* inits = nullptr;
    for (std::size_t i = 0; i < a.kw.size(); ++i) {
      if (a.kw[i].first != "init_values") fail(a.kw_spans[i], "pl.while_ takes only init_values=");
      inits = &a.kw[i].second;
    }
    std::vector<Expr> init = init_values(inits);
    std::vector<Target> names = tgt.is_tuple ? tgt.items : std::vector<Target>{tgt};
    expect(TokenKind::colon, "after the loop header");
    std::vector<Expr> ias = make_iter_args(names, init, tgt.span);
    if (!accept(TokenKind::newline)) fail_expected("a new line", "after 'pl.while_(...):' (the body must start with pl.cond)");
    DepthGuard g(*this, cur().span);
    expect(TokenKind::indent, "for the body of pl.while_");
    std::vector<std::string> cond_comments = take_comments(pos_);
    (void)cond_comments;
    if (!(at_path("pl", "cond") && peek(3).is(TokenKind::lparen)))
      fail_expected("pl.cond(...)", "as the first statement of a pl.while_ body");
    Span cs = cur().span;
    parse_dotted("pl.cond");
    CallArgs c = parse_call_args("pl.cond");
    no_kwargs(c, "pl.cond");
    arity(c, 1, 1, "pl.cond", cs);
    Expr cond = bool_cond(c.pos[0], "the pl.while_ condition");
    expect_line_end("after pl.cond(...)");
    yields_.push_back(YieldCtx{});
    std::vector<Stmt> body;
    ++nest_;
    block_rest(body);
    --nest_;
    YieldCtx ctx = std::move(yields_.back());
    yields_.pop_back();
    check_closing_yields(ctx, body, "a pl.while_ body");
    std::vector<Expr> rvs = loop_return_vars(ctx, ias);
    out.push_back(ir::make_stmt(ir::While{ias, cond, ir::make_seq(std::move(body), s), std::move(rvs)}, s));
  }
  void parse_while(std::vector<Stmt>& out) {
    DepthGuard g(*this, cur().span);
    Span s = advance().span;
    Expr cond = bool_cond(parse_expr(), "a while condition");
    expect(TokenKind::colon, "after the while condition");
    yields_.push_back(YieldCtx{});
    std::vector<Stmt> body = parse_suite("while");
    YieldCtx ctx = std::move(yields_.back());
    yields_.pop_back();
    check_closing_yields(ctx, body, "a while body");
    loop_return_vars(ctx, {});
    out.push_back(ir::make_stmt(ir::While{{}, cond, ir::make_seq(std::move(body), s), {}}, s));
  }

  ir::Kwargs scope_params(const CallArgs& a, std::vector<Expr>* args, bool enum_positionals) {
    ir::Kwargs params;
    for (const auto& p : a.pos) {
      if (enum_positionals && p.kind == PVal::Kind::path) {
        auto seg = split_path(p.s);
        std::string fam = seg.size() >= 2 ? std::string(seg[seg.size() - 2]) : std::string();
        if (fam == "Level") params.emplace_back("level", ir::EnumText{p.s});
        else if (fam == "Role") params.emplace_back("role", ir::EnumText{p.s});
        else fail(p.span, "unexpected positional argument '" + p.s + "'");
        continue;
      }
      args->push_back(value_expr(p, "a scope argument"));
    }
    for (const auto& [k, v] : a.kw) params.emplace_back(k, attr_value(k, v, nullptr, false));
    return params;
  }
  void parse_scope_loop(const Target& tgt, const std::string& kind, const Span& s, std::vector<Stmt>& out) {
    if (tgt.is_tuple) fail(tgt.span, "expected a single name as the target of pl." + kind);
    CallArgs a = parse_call_args("pl." + kind);
    std::vector<Expr> args;
    ir::Kwargs params = scope_params(a, &args, false);
    expect(TokenKind::colon, "after the pl." + kind + " header");
    Expr bound = fresh(tgt.name, ir::scalar_type(ir::DataType::INDEX), tgt.span);
    std::vector<Stmt> body = parse_suite("pl." + kind);
    out.push_back(ir::make_stmt(ir::Scope{kind == "spmd" ? ir::ScopeKind::spmd_for : ir::ScopeKind::split_aiv,
                                          std::move(args), std::move(params), bound,
                                          ir::make_seq(std::move(body), s)},
                                s));
  }
  void parse_with(std::vector<Stmt>& out) {
    DepthGuard g(*this, cur().span);
    Span s = advance().span;
    if (!at_name("pl")) fail_expected("pl.at, pl.cluster, pl.spmd, pl.scope or pl.manual_scope", "after 'with'");
    Span ps = cur().span;
    std::string path = parse_dotted("a scope");
    std::string kind = path.size() > 3 ? path.substr(3) : std::string();
    ir::ScopeKind sk;
    if (kind == "at") sk = ir::ScopeKind::at;
    else if (kind == "cluster") sk = ir::ScopeKind::cluster;
    else if (kind == "spmd") sk = ir::ScopeKind::spmd;
    else if (kind == "scope") sk = ir::ScopeKind::scope;
    else if (kind == "manual_scope") sk = ir::ScopeKind::manual_scope;
    else fail(ps, "unknown scope '" + path + "'; expected pl.at, pl.cluster, pl.spmd, pl.scope or pl.manual_scope");
    CallArgs a = parse_call_args(path);
    if (sk == ir::ScopeKind::scope) {
      if (const PVal* m = kwarg(a, "mode")) {
        if (m->kind != PVal::Kind::path || (m->s != "pl.ScopeMode.MANUAL" && m->s != "pl.ScopeMode.AUTO"))
          fail(m->span, "expected pl.ScopeMode.AUTO or pl.ScopeMode.MANUAL for mode=, found " + describe_val(*m));
        if (m->s == "pl.ScopeMode.MANUAL") sk = ir::ScopeKind::manual_scope;
        drop_kwarg(a, "mode");
      }
    }
    std::vector<Expr> args;
    ir::Kwargs params = scope_params(a, &args, sk == ir::ScopeKind::at);
    Expr bound;
    const Token* as_name = nullptr;
    if (at_name("as")) {
      advance();
      as_name = &expect_name("a name", "after 'as'");
      if (sk != ir::ScopeKind::at && sk != ir::ScopeKind::spmd)
        fail(as_name->span, "'as' is only allowed on pl.at and pl.spmd");
    }
    expect(TokenKind::colon, "after the with header");
    if (as_name) bound = fresh(as_name->text, ir::scalar_type(ir::DataType::TASK_ID), as_name->span);
    std::vector<Stmt> body = parse_suite(path);
    out.push_back(ir::make_stmt(ir::Scope{sk, std::move(args), std::move(params), bound, ir::make_seq(std::move(body), s)}, s));
  }

  // ---- functions and the module ------------------------------------------------------------
  void parse_function_header(FnState& f) {
    // decorator: '@' pl.function [ '(' kwargs ')' ] NEWLINE
    Span ds = expect(TokenKind::at, "to start a decorator").span;
    std::string deco = parse_dotted("a decorator");
    if (deco != "pl.function") fail(ds, "unsupported decorator '@" + deco + "'; expected @pl.function");
    if (at(TokenKind::lparen)) {
      CallArgs a = parse_call_args("@pl.function");
      if (!a.pos.empty()) fail(a.pos[0].span, "@pl.function takes keyword arguments only");
      for (std::size_t i = 0; i < a.kw.size(); ++i) {
        const std::string& k = a.kw[i].first;  // not a structured binding: lambdas capture it
        const PVal& v = a.kw[i].second;
        auto member = [&](std::string_view fam) -> std::string {
          auto seg = split_path(v.s);
          if (v.kind != PVal::Kind::path || seg.size() < 2 || seg[seg.size() - 2] != fam)
            fail(v.span, "expected pl." + std::string(fam) + ".<name> for " + k + "=, found " + describe_val(v));
          return std::string(seg.back());
        };
        if (k == "type") {
          auto t = ir::enum_from_name<ir::FunctionType>(member("FunctionType"));
          if (!t) fail(v.span, "unknown function type '" + v.s + "'");
          f.type = *t;
        } else if (k == "level") {
          auto l = ir::level_from_name(member("Level"));
          if (!l) fail(v.span, "unknown level '" + v.s + "'");
          f.level = l;
        } else if (k == "role") {
          auto r = ir::enum_from_name<ir::Role>(member("Role"));
          if (!r) fail(v.span, "unknown role '" + v.s + "'");
          f.role = r;
        } else if (k == "auto_scope") {
          auto* b = v.kind == PVal::Kind::expr ? ir::as<ir::ConstBool>(v.e) : nullptr;
          if (!b) fail(v.span, "expected True or False for auto_scope=");
          if (!b->value) f.attrs.emplace_back("auto_scope", false);
        } else if (k == "external_source") {
          if (v.kind != PVal::Kind::str) fail(v.span, "expected a string for external_source=");
          f.attrs.emplace_back("external_source", v.s);
        } else if (k == "strict_ssa") {
        } else if (k == "attrs") {
          for (auto& kv : attrs_dict(v)) f.attrs.push_back(std::move(kv));
        } else {
          fail(a.kw_spans[i], "unknown keyword '" + k + "' for @pl.function");
        }
      }
    }
    expect(TokenKind::newline, "after the decorator");
    if (at(TokenKind::at)) fail(cur().span, "only one decorator (@pl.function) is supported");
    expect_keyword("def", "after @pl.function");
    const Token& name = expect_name("a function name");
    f.name = name.text;
    f.span = name.span;
    expect(TokenKind::lparen, "to open the parameter list of '" + f.name + "'");
    bool first = true;
    while (!at(TokenKind::rparen)) {
      const Token& p = expect_name("a parameter name", "in the parameter list of '" + f.name + "'");
      if (first && p.text == "self" && !at(TokenKind::colon)) {
        first = false;
        if (!accept(TokenKind::comma)) break;
        continue;
      }
      first = false;
      if (!at(TokenKind::colon)) fail_expected("':' and a type", "after parameter '" + p.text + "'");
      advance();
      ir::ParamDirection dir = ir::ParamDirection::In;
      Type t;
      {
        TypeCtx tc(*this);
        Span ts = cur().span;
        if (at(TokenKind::name)) {
          std::size_t save = pos_;
          std::string path = parse_dotted("a type");
          auto last = split_path(path).back();
          if ((last == "Out" || last == "InOut") && at(TokenKind::lbracket)) {
            advance();
            dir = last == "Out" ? ir::ParamDirection::Out : ir::ParamDirection::InOut;
            t = parse_type();
            expect(TokenKind::rbracket, "to close " + path + "[...]");
          } else {
            pos_ = save;
            t = parse_type();
          }
        } else {
          t = parse_type();
        }
        if (!t) fail(ts, "parameter '" + p.text + "' needs a real type annotation, not a string");
        if (ir::as<ir::TupleType>(t)) fail(ts, "a tuple is not allowed as a parameter type");
        if (dir == ir::ParamDirection::InOut && ir::as<ir::ScalarType>(t))
          fail(ts, "a scalar parameter cannot be pl.InOut");
      }
      if (at(TokenKind::assign)) fail(cur().span, "default parameter values are not supported");
      if (f.scope.count(p.text)) fail(p.span, "duplicate parameter '" + p.text + "'");
      Expr var = ir::make_var(p.text, t, p.span);
      f.scope[p.text] = var;
      f.params.push_back(ir::Param{var, dir});
      if (!accept(TokenKind::comma)) break;
    }
    expect(TokenKind::rparen, "to close the parameter list of '" + f.name + "'");
    if (accept(TokenKind::arrow)) {
      TypeCtx tc(*this);
      Span rs = cur().span;
      if (at_name("None")) {
        advance();
      } else if (at_name("tuple") && peek().is(TokenKind::lbracket)) {
        advance();
        advance();
        while (!at(TokenKind::rbracket)) {
          Span es = cur().span;
          Type t = parse_type();
          if (!t) fail(es, "a string is not a return type");
          f.returns.push_back(t);
          if (!accept(TokenKind::comma)) break;
        }
        expect(TokenKind::rbracket, "to close tuple[...]");
      } else {
        Type t = parse_type();
        if (!t) fail(rs, "a string is not a return type");
        f.returns.push_back(t);
      }
    }
    expect(TokenKind::colon, "after the signature of '" + f.name + "'");
    f.body_pos = pos_;
    skip_body();
  }
  void skip_body() {
    if (!accept(TokenKind::newline)) {
      while (!at(TokenKind::newline) && !at(TokenKind::end)) advance();
      accept(TokenKind::newline);
      return;
    }
    if (!at(TokenKind::indent)) fail_expected("an indented block", "for the function body");
    int depth = 0;
    do {
      if (at(TokenKind::indent)) ++depth;
      else if (at(TokenKind::dedent)) --depth;
      else if (at(TokenKind::end)) fail_expected("the end of the function body");
      advance();
    } while (depth > 0);
  }
  ir::Function parse_function_body(FnState& f) {
    fn_ = &f;
    pos_ = f.body_pos;
    nest_ = 0;
    std::vector<Stmt> body;
    auto func_attr = [&] {
      if (!(at_path("pl", "func_attr") && peek(3).is(TokenKind::lparen))) return;
      std::vector<std::string> c = take_comments(pos_);
      parse_dotted("pl.func_attr");
      CallArgs a = parse_call_args("pl.func_attr");
      no_kwargs(a, "pl.func_attr");
      arity(a, 1, 1, "pl.func_attr", a.close);
      for (auto& kv : attrs_dict(a.pos[0])) f.attrs.push_back(std::move(kv));
      expect_line_end("after pl.func_attr(...)");
    };
    if (accept(TokenKind::newline)) {
      DepthGuard g(*this, cur().span);
      expect(TokenKind::indent, "for the body of '" + f.name + "'");
      while (at(TokenKind::string)) {  // docstrings before pl.func_attr
        std::size_t before = body.size();
        parse_statement(body);
        (void)before;
      }
      func_attr();
      block_rest(body);
    } else {
      parse_simple_line(body);
    }
    carried_.clear();
    fn_ = nullptr;
    return ir::make_function(ir::FunctionNode{f.name, f.params, f.returns, ir::make_seq(std::move(body), f.span),
                                              f.type, f.level, f.role, f.attrs, f.span});
  }

  void parse_dynamic_decl() {
    const Token& name = advance();
    advance();  // '='
    Span s = cur().span;
    std::string path = parse_dotted("pl.dynamic");
    if (path != "pl.dynamic")
      fail(s, "only 'NAME = pl.dynamic(\"NAME\")' assignments are allowed at the top level, found '" + path + "'");
    CallArgs a = parse_call_args("pl.dynamic");
    if (a.pos.size() != 1 || a.pos[0].kind != PVal::Kind::str)
      fail(s, "pl.dynamic takes one string argument, the dimension's name");
    // The printer writes `N = pl.dynamic("N")` from the one name the Var has, so a different
    // string could not be printed back.
    if (a.pos[0].s != name.text)
      fail(a.pos[0].span, "pl.dynamic must repeat the name it is assigned to: write " + name.text +
                              " = pl.dynamic(\"" + name.text + "\")");
    if (!dyn_.count(name.text)) dyn_.emplace(name.text, ir::make_var(name.text, ir::scalar_type(ir::DataType::INDEX), name.span));
    expect_line_end("after the pl.dynamic declaration");
  }
  void skip_import() {
    while (!at(TokenKind::newline) && !at(TokenKind::end)) advance();
    accept(TokenKind::newline);
  }

  std::string_view src_;
  std::shared_ptr<const std::string> file_;
  const ops::Registry& reg_;
  std::vector<Token> toks_;
  std::unordered_map<std::size_t, std::vector<std::string>> comments_at_;
  std::unordered_map<std::string, const ops::OpInfo*> op_names_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  bool type_ctx_ = false;
  std::unordered_map<std::string, Expr> dyn_;
  std::vector<FnState> fns_;
  FnState* fn_ = nullptr;
  std::vector<YieldCtx> yields_;
  std::vector<std::string> carried_;
  int nest_ = 0;  // blocks open inside the current function body (0: its top level)
  Type rhs_ann_;             // annotation of the assignment whose value is being parsed
  std::size_t rhs_tok_ = 0;  // first token of that value
  // First token of the expression statement being parsed (none: max): an op call there
  // needs no result type.
  std::size_t eval_tok_ = std::numeric_limits<std::size_t>::max();
};

inline ir::Program Parser::run() {
  std::string program_name;
  bool have_program = false, have_function = false;
  while (!at(TokenKind::end)) {
    if (accept(TokenKind::newline)) continue;
    if (at_name("import") || at_name("from")) {
      skip_import();
      continue;
    }
    if (at(TokenKind::name) && peek().is(TokenKind::assign)) {
      if (have_program || have_function) fail(cur().span, "pl.dynamic declarations must come before the program");
      parse_dynamic_decl();
      continue;
    }
    if (at(TokenKind::at)) {
      if (have_program || have_function)
        fail(cur().span, "the text must contain exactly one @pl.program or one @pl.function");
      if (peek().is_name("pl") && peek(3).is_name("program")) {
        advance();
        parse_dotted("pl.program");
        if (at(TokenKind::lparen)) {
          CallArgs a = parse_call_args("@pl.program");
          for (std::size_t i = 0; i < a.kw.size(); ++i)
            if (a.kw[i].first != "strict_ssa") fail(a.kw_spans[i], "unknown keyword '" + a.kw[i].first + "' for @pl.program");
          if (!a.pos.empty()) fail(a.pos[0].span, "@pl.program takes keyword arguments only");
        }
        expect(TokenKind::newline, "after @pl.program");
        expect_keyword("class", "after @pl.program");
        program_name = expect_name("a class name").text;
        if (accept(TokenKind::lparen)) expect(TokenKind::rparen, "(a program class has no bases)");
        expect(TokenKind::colon, "after the class name");
        expect(TokenKind::newline, "after 'class " + program_name + ":'");
        expect(TokenKind::indent, "for the body of class " + program_name);
        {
          DepthGuard g(*this, cur().span);
          while (!at(TokenKind::dedent) && !at(TokenKind::end)) {
            if (at(TokenKind::string) || at_name("pass")) {
              skip_import();
              continue;
            }
            if (!at(TokenKind::at)) fail_expected("'@pl.function'", "in the program class");
            FnState f;
            fn_ = &f;
            parse_function_header(f);
            fn_ = nullptr;
            for (const auto& g2 : fns_)
              if (g2.name == f.name) fail(f.span, "duplicate function '" + f.name + "'");
            fns_.push_back(std::move(f));
          }
          expect(TokenKind::dedent, "to end the program class");
        }
        have_program = true;
        continue;
      }
      FnState f;
      fn_ = &f;
      parse_function_header(f);
      fn_ = nullptr;
      fns_.push_back(std::move(f));
      have_function = true;
      continue;
    }
    fail_expected("'@pl.program', '@pl.function', an import or a pl.dynamic declaration", "at the top level");
  }
  if (!have_program && !have_function) fail(cur().span, "no @pl.program or @pl.function found");
  std::size_t end_pos = pos_;
  std::vector<ir::Function> fns;
  fns.reserve(fns_.size());
  for (auto& f : fns_) fns.push_back(parse_function_body(f));
  pos_ = end_pos;
  return ir::make_program(program_name, std::move(fns));
}

}  // namespace parser_detail

// Parses a whole `pl` module: one `@pl.program` class or one `@pl.function`.
inline ir::Program parse_program(std::string_view source, std::string file_name = "<input>",
                                 const ops::Registry& registry = ops::builtin_registry()) {
  return parser_detail::Parser(source, std::move(file_name), registry).run();
}

}  // namespace tilewright::text
