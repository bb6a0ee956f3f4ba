#pragma once
// What the expression grammar produces before anyone decides what it means: a PVal is an IR
// expression, or a string, a dotted path (an enum spelling such as pl.Mem.Vec), a list, a
// dict, None, or text kept verbatim. Keeping those apart until a kwarg, attribute or type
// consumer reads them keeps the expression grammar context-free.
//
// Also here: the spellings of enum values in paths, and the compact type text diagnostics use.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "tilewright/ir/expr_text.hpp"
#include "tilewright/ir/function.hpp"
#include "tilewright/text/lexer.hpp"
#include "tilewright/text/parse/recycling_allocator.hpp"

namespace tilewright::text::parser_detail {

using ir::Expr;
using ir::Span;
using ir::Stmt;
using ir::Type;

// How deep an expression tree the text may build. Every walk over an expression (printing,
// equality, verifiers, passes, destruction) recurses on it; bounding the tree where it is
// written keeps them all off the end of the stack with one located diagnostic, and no
// program a person or a generator writes comes near it.
inline constexpr std::uint32_t kMaxExprDepth = 1000;

// A parsed value before it is known how it will be used.
struct PVal;
// The items of a list or an argument list: made and dropped on every line, so their blocks
// are recycled (recycling_allocator.hpp).
using PVals = std::vector<PVal, RecyclingAllocator<PVal>>;

struct PVal {
  enum class Kind : std::uint8_t { expr, str, path, list, dict, none, raw };
  Kind kind = Kind::expr;
  Expr e;
  std::string s;  // string value, or the dotted path
  PVals items;
  std::vector<std::string>
      keys;  // dict keys; the values are `items` (pair<.., PVal> would need a complete PVal)
  Span span;
  std::size_t begin = 0, end = 0;  // source bytes, for values kept verbatim
  bool literal = false;            // a numeric/bool literal as written (possibly negated)
  bool paren_tuple = false;        // `(a, b)` rather than `[a, b]`
  std::uint32_t depth = 1;         // of the expression tree built so far (kMaxExprDepth)
};

struct CallArgs {
  PVals pos;
  std::vector<std::pair<std::string, PVal>, RecyclingAllocator<std::pair<std::string, PVal>>> kw;
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

// The parts of a dotted path, kept inline: every op call and enum in a kernel splits one.
using PathParts = boost::container::small_vector<std::string_view, 6>;

inline PathParts split_path(std::string_view p) {
  PathParts out;
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

// A compact spelling for diagnostics ("pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]").
inline std::string type_text(const Type& t) {
  if (!t) return "<none>";
  auto dims = [](const std::vector<Expr>& s) { return ir::dims_text(s); };
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
                    case ir::Marker::Ptr:
                      return std::string("pl.Ptr");
                    case ir::Marker::MemRefType:
                      return std::string("pl.MemRefType");
                    case ir::Marker::WindowBufferType:
                      return std::string("pld.WindowBufferType");
                    case ir::Marker::CommCtxType:
                      return std::string("pld.CommCtxType");
                    default:
                      return std::string("a marker type");
                  }
                },
            });
}

// type_text plus a tensor's view, for a message where two types differ only there.
inline std::string type_text_with_view(const Type& t) {
  auto* s = ir::as<ir::TensorType>(t);
  if (!s) return type_text(t);
  if (!s->view) return type_text(t) + " with no view (layout ND)";
  const ir::TensorView& v = *s->view;
  std::string o = type_text(t) + " with layout " + std::string(ir::name_of(v.layout));
  if (!v.stride.empty()) o += ", strides " + ir::dims_text(v.stride);
  if (!v.valid_shape.empty()) o += ", valid shape " + ir::dims_text(v.valid_shape);
  return o;
}

inline std::size_t type_kind(const Type& t) { return t ? t->v.index() : 0; }

// The value of a constant expression (numbers and bools, arithmetic on them), as Python
// computes it when the module runs; nullptr when the expression is not constant or its
// value does not fit (an overflow, a division by zero).
inline Expr fold_constant(const Expr& e) {
  if (!e) return nullptr;
  if (ir::as<ir::ConstInt>(e) || ir::as<ir::ConstFloat>(e) || ir::as<ir::ConstBool>(e)) return e;
  auto number = [](const Expr& x) -> std::optional<double> {
    if (auto* i = ir::as<ir::ConstInt>(x)) return static_cast<double>(i->value);
    if (auto* f = ir::as<ir::ConstFloat>(x)) return f->value;
    return std::nullopt;
  };
  if (auto* u = ir::as<ir::Unary>(e); u && u->op == ir::UnaryOp::Neg) {
    Expr x = fold_constant(u->operand);
    if (auto* i = ir::as<ir::ConstInt>(x)) {
      if (i->value == std::numeric_limits<std::int64_t>::min()) return nullptr;
      return ir::make_int(-i->value, ir::as<ir::ScalarType>(x->type)->dtype, e->span);
    }
    if (auto* f = ir::as<ir::ConstFloat>(x)) return ir::make_float(-f->value, ir::as<ir::ScalarType>(x->type)->dtype, e->span);
    return nullptr;
  }
  auto* b = ir::as<ir::Binary>(e);
  if (!b) return nullptr;
  Expr l = fold_constant(b->lhs), r = fold_constant(b->rhs);
  if (!l || !r) return nullptr;
  using B = ir::BinaryOp;
  auto* li = ir::as<ir::ConstInt>(l);
  auto* ri = ir::as<ir::ConstInt>(r);
  if (li && ri) {
    ir::DataType dt = ir::as<ir::ScalarType>(e->type)->dtype;
    std::int64_t x = li->value, y = ri->value, out = 0;
    switch (b->op) {
      case B::Add: if (__builtin_add_overflow(x, y, &out)) return nullptr; break;
      case B::Sub: if (__builtin_sub_overflow(x, y, &out)) return nullptr; break;
      case B::Mul: if (__builtin_mul_overflow(x, y, &out)) return nullptr; break;
      case B::FloorDiv:
      case B::FloorMod: {
        if (y == 0 || (x == std::numeric_limits<std::int64_t>::min() && y == -1)) return nullptr;
        std::int64_t q = x / y, m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) {  // Python floors toward negative infinity
          --q;
          m += y;
        }
        out = b->op == B::FloorDiv ? q : m;
        break;
      }
      case B::Min: out = std::min(x, y); break;
      case B::Max: out = std::max(x, y); break;
      case B::FloatDiv:
        if (y == 0) return nullptr;
        return ir::make_float(static_cast<double>(x) / static_cast<double>(y), ir::DataType::FP32, e->span);
      default: return nullptr;
    }
    return ir::make_int(out, dt, e->span);
  }
  auto x = number(l), y = number(r);
  if (!x || !y) return nullptr;
  ir::DataType dt = ir::as<ir::ScalarType>(e->type)->dtype;
  switch (b->op) {
    case B::Add: return ir::make_float(*x + *y, dt, e->span);
    case B::Sub: return ir::make_float(*x - *y, dt, e->span);
    case B::Mul: return ir::make_float(*x * *y, dt, e->span);
    case B::FloatDiv: return *y == 0 ? nullptr : ir::make_float(*x / *y, dt, e->span);
    default: return nullptr;
  }
}

// A docstring as comment lines, tidied the way Python's inspect.cleandoc does: the first
// line loses its leading blanks, the others their common indentation, and blank lines at
// either end go. A comment line cannot keep a final '\r' (the reader takes "\r\n" as
// the line end), so that goes too.
inline std::vector<std::string> docstring_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t b = 0;
  for (std::size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == '\n') {
      std::size_t e = i > b && text[i - 1] == '\r' ? i - 1 : i;
      lines.emplace_back(text.substr(b, e - b));
      b = i + 1;
    }
  auto indent = [](const std::string& l) { return l.find_first_not_of(" \t"); };
  std::size_t margin = std::string::npos;
  for (std::size_t i = 1; i < lines.size(); ++i)
    if (auto k = indent(lines[i]); k != std::string::npos) margin = std::min(margin, k);
  if (!lines.empty()) lines[0].erase(0, std::min(lines[0].size(), indent(lines[0])));
  for (std::size_t i = 1; i < lines.size(); ++i)
    lines[i].erase(0, std::min(lines[i].size(), margin == std::string::npos ? lines[i].size() : margin));
  auto blank = [&](const std::string& l) { return indent(l) == std::string::npos; };
  while (!lines.empty() && blank(lines.back())) lines.pop_back();
  std::size_t first = 0;
  while (first < lines.size() && blank(lines[first])) ++first;
  lines.erase(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(first));
  return lines;
}

// A module constant read at `s`: the same value, located where it is used.
inline Expr constant_at(const Expr& c, const Span& s) {
  if (auto* i = ir::as<ir::ConstInt>(c)) return ir::make_int(i->value, ir::as<ir::ScalarType>(c->type)->dtype, s);
  if (auto* f = ir::as<ir::ConstFloat>(c)) return ir::make_float(f->value, ir::as<ir::ScalarType>(c->type)->dtype, s);
  if (auto* b = ir::as<ir::ConstBool>(c)) return ir::make_bool(b->value, s);
  return c;
}

inline PVal of(Expr e, Span s, bool literal = false) {
  PVal v;
  v.kind = PVal::Kind::expr;
  v.e = std::move(e);
  v.span = std::move(s);
  v.literal = literal;
  return v;
}

inline std::optional<ir::MemorySpace> memory_space_of(std::string_view path) {
  auto p = split_path(path);
  if (p.size() < 2) return std::nullopt;
  auto fam = p[p.size() - 2];
  if (fam != "Mem" && fam != "MemorySpace") return std::nullopt;
  return ir::enum_from_name<ir::MemorySpace>(p.back());
}

inline std::optional<ir::DataType> dtype_of(std::string_view path) {
  auto p = split_path(path);
  if (p.size() > 2 && p[p.size() - 2] != "DataType") return std::nullopt;
  return ir::enum_from_name<ir::DataType>(p.back());
}

template <class E>
inline std::optional<E> enum_of(std::string_view path, std::string_view family) {
  auto p = split_path(path);
  if (p.size() < 2 || p[p.size() - 2] != family) return std::nullopt;
  return ir::enum_from_name<E>(p.back());
}

inline std::string op_stem(std::string_view last) {
  if (last.size() > 1 && last.back() == '_' && is_python_keyword(last.substr(0, last.size() - 1)))
    return std::string(last.substr(0, last.size() - 1));
  return std::string(last);
}

// seg[from] . … . op_stem(seg.back()): the op name a dotted call path spells.
inline std::string dotted_op_name(const PathParts& seg, std::size_t from) {
  std::string name(seg[from]);
  // Appended piecewise: `"." + std::string&&` trips g++ 12's -Wrestrict at -O3 (a false
  // positive that -Werror turns into a build failure).
  for (std::size_t i = from + 1; i < seg.size(); ++i) {
    name += '.';
    if (i + 1 == seg.size()) name += op_stem(seg[i]);
    else name += seg[i];
  }
  return name;
}

}  // namespace tilewright::text::parser_detail
