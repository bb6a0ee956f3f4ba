#pragma once
// Building a Call through the registry: look the op up, check arity and kwargs against
// its row, deduce the result type, then stamp the memory space a tile result left open
// (ir_ops §B.1 steps 1–5).
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilewright/ir/diagnostic.hpp"
#include "tilewright/ir/expr.hpp"
#include "tilewright/ir/expr_text.hpp"
#include "tilewright/ops/registry.hpp"

namespace tilewright::ops {

namespace detail {

inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

inline std::string_view kind_name(KwargKind k) {
  switch (k) {
    case KwargKind::integer: return "int";
    case KwargKind::boolean: return "bool";
    case KwargKind::string: return "str";
    case KwargKind::floating: return "float";
    case KwargKind::dtype: return "DataType";
    case KwargKind::memory_space: return "MemorySpace";
    case KwargKind::tensor_layout: return "TensorLayout";
    case KwargKind::tile_layout: return "TileLayout";
    case KwargKind::pad_value: return "PadValue";
    case KwargKind::expr: return "expression";
    case KwargKind::any: return "any";
    case KwargKind::pipe_type: return "PipeType";
    case KwargKind::cast_mode: return "CastMode";
    case KwargKind::atomic_type: return "AtomicType";
  }
  return "?";
}

inline std::string_view value_kind_name(const AttrValue& v) {
  static constexpr std::string_view names[] = {"int", "bool", "str", "float", "DataType", "MemorySpace",
                                                "TensorLayout", "TileLayout", "PadValue", "ArgDirection",
                                                "list of ArgDirection", "list of int", "expression",
                                                "list of expressions", "enum"};
  return names[v.index()];
}

inline bool kind_accepts(KwargKind k, const AttrValue& v) {
  switch (k) {
    case KwargKind::integer:
    case KwargKind::pipe_type:
    case KwargKind::cast_mode:
    case KwargKind::atomic_type: return std::holds_alternative<std::int64_t>(v);
    case KwargKind::boolean: return std::holds_alternative<bool>(v);
    case KwargKind::string: return std::holds_alternative<std::string>(v);
    case KwargKind::floating: return std::holds_alternative<double>(v);
    // Upstream lets a DataType kwarg be given as its integer code.
    case KwargKind::dtype: {
      if (std::holds_alternative<ir::DataType>(v)) return true;
      auto* code = std::get_if<std::int64_t>(&v);
      return code && *code >= 0 && *code <= static_cast<std::int64_t>(ir::DataType::TASK_ID);
    }
    case KwargKind::memory_space: return std::holds_alternative<ir::MemorySpace>(v);
    case KwargKind::tensor_layout: return std::holds_alternative<ir::TensorLayout>(v);
    case KwargKind::tile_layout: return std::holds_alternative<ir::TileLayout>(v);
    case KwargKind::pad_value: return std::holds_alternative<ir::PadValue>(v);
    case KwargKind::expr: return std::holds_alternative<Expr>(v);
    case KwargKind::any: return true;
  }
  return false;
}

inline std::string plural(int n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

}  // namespace detail

// Finds `name` or throws "unknown op 'x'" with the closest registered name (distance ≤ 2).
inline const OpInfo& lookup_op(const Registry& registry, std::string_view name, Span span = {}) {
  if (const OpInfo* info = registry.find(name)) return *info;
  std::string best;
  std::size_t best_distance = 3;
  registry.for_each([&](const OpInfo& info) {
    std::size_t d = detail::edit_distance(name, info.name);
    if (d < best_distance || (d == best_distance && info.name < best)) {
      best_distance = d;
      best = info.name;
    }
  });
  std::string message = "unknown op '" + std::string(name) + "'";
  if (!best.empty()) message += "; did you mean '" + best + "'?";
  else if (name.find('.') == std::string_view::npos)
    message += "; a name without a dot is probably a function of the program (call it as self." +
               std::string(name) + "(...))";
  ir::throw_user_error("op registry", message, std::move(span));
}

inline void validate_call(const OpInfo& info, const std::vector<Expr>& args, const Kwargs& kwargs, Span span) {
  auto n = static_cast<int>(args.size());
  if (n < info.min_args || (info.max_args >= 0 && n > info.max_args)) {
    std::string expected =
        info.max_args < 0             ? "at least " + detail::plural(info.min_args, "argument")
        : info.min_args == info.max_args ? detail::plural(info.max_args, "argument")
                                         : std::to_string(info.min_args) + " to " +
                                               detail::plural(info.max_args, "argument");
    ir::throw_user_error(info.name, info.name + " takes " + expected + ", got " + std::to_string(n), span);
  }
  for (std::size_t i = 0; i < args.size(); ++i)
    if (!args[i])
      ir::throw_user_error(info.name, info.name + ": argument " + std::to_string(i + 1) + " is missing", span);
  for (std::size_t i = 0; i < kwargs.size(); ++i) {
    const auto& [key, value] = kwargs[i];
    for (std::size_t j = 0; j < i; ++j)
      if (kwargs[j].first == key)
        ir::throw_user_error(info.name, info.name + ": kwarg '" + key + "' is given twice", span);
    const KwargSpec* spec = info.kwarg(key);
    if (!spec) {
      if (info.open_kwargs) continue;
      std::string known;
      for (const auto& k : info.kwargs) known += (known.empty() ? "" : ", ") + k.name;
      ir::throw_user_error(info.name,
                           info.name + " has no kwarg '" + key + "'" +
                               (known.empty() ? "; it takes no kwargs" : "; accepted: " + known),
                           span);
    }
    if (!detail::kind_accepts(spec->kind, value))
      ir::throw_user_error(info.name,
                           info.name + ": kwarg '" + key + "' expects " + std::string(detail::kind_name(spec->kind)) +
                               ", got " + std::string(detail::value_kind_name(value)),
                           span);
  }
  for (const auto& spec : info.kwargs)
    if (spec.required && !ir::find_kwarg(kwargs, spec.name))
      ir::throw_user_error(info.name,
                           info.name + " requires kwarg '" + spec.name + "' (" +
                               std::string(detail::kind_name(spec.kind)) + ")",
                           span);
}

// The deduced result type, or nullopt when the op has no deducer (annotate instead).
// A deduced shape comes from the call's own arguments (a load's window, a create's shape),
// so it is checked here as the parser checks a written annotation: a tile's extents are
// positive and a tensor's are not negative. Otherwise `pl.tile.load(x, [0, 0], [8, -1])`
// would print a `pl.Tile[[8, -1], ...]` that no parser reads back (issue 34).
inline void check_deduced_extents(const OpInfo& info, const Type& type, const Span& span) {
  if (auto* tuple = ir::as<ir::TupleType>(type)) {
    for (const auto& t : tuple->elements) check_deduced_extents(info, t, span);
    return;
  }
  auto* tile = ir::as<ir::TileType>(type);
  auto* tensor = ir::as<ir::TensorType>(type);
  const std::vector<Expr>* shape = tile ? &tile->shape : tensor ? &tensor->shape : nullptr;
  if (!shape) return;
  // A valid region of another rank than the shape is no type (no reader takes it back): a
  // deducer that makes one is wrong, whatever the arguments.
  if (tile && tile->view && !tile->view->valid_shape.empty() && tile->view->valid_shape.size() != shape->size())
    ir::throw_internal_error(info.name,
                             info.name + ": deduced a valid_shape " + ir::dims_text(tile->view->valid_shape) +
                                 " for the result shape " + ir::dims_text(*shape) + " (another rank)",
                             span);
  for (std::size_t i = 0; i < shape->size(); ++i) {
    auto c = ir::const_int((*shape)[i]);
    if (!c || *c > 0 || (tensor && *c == 0)) continue;
    ir::throw_user_error(info.name,
                         info.name + ": " + (tile ? "tile" : "tensor") + " dimension " + std::to_string(i) +
                             (tile ? " must be positive" : " cannot be negative") + " in the result shape " +
                             ir::dims_text(*shape) + " deduced from the arguments, got " + std::to_string(*c) +
                             (tile ? "; a tile is a fixed-size buffer" : "") +
                             ". Check the shape the call passes (a window, a shape or a valid extent)",
                         span);
  }
}

inline std::optional<Type> deduce_type(const OpInfo& info, const std::vector<Expr>& args, const Kwargs& kwargs,
                                       Span span) {
  if (!info.deduce) return std::nullopt;
  Type t = info.deduce(DeduceInput{info, args, kwargs, span});
  check_deduced_extents(info, t, span);
  return t;
}

// Step 4 of upstream Create: a tile result (or tuple element) without a memory space gets
// the op's resolved output space, else the space of the first tile argument that has one.
// This is that space, when the result has a tile left to stamp; stamp_memory applies it.
inline std::optional<ir::MemorySpace> memory_to_stamp(const OpInfo& info, const Type& type,
                                                      const std::vector<Expr>& args, const Kwargs& kwargs) {
  if (info.memory.opted_out || !type) return std::nullopt;
  auto unstamped = [](const Type& t) {
    auto* tile = ir::as<ir::TileType>(t);
    return tile && !tile->memory;
  };
  bool any = unstamped(type);
  if (auto* tuple = ir::as<ir::TupleType>(type))
    for (const auto& e : tuple->elements) any = any || unstamped(e);
  if (!any) return std::nullopt;
  std::optional<ir::MemorySpace> space;
  switch (info.memory.output) {
    case OutputMemory::fixed: space = info.memory.fixed_space; break;
    case OutputMemory::from_kwarg:
      if (auto* m = ir::kwarg_as<ir::MemorySpace>(kwargs, "target_memory"))
        space = *m;
      else
        space = info.memory.fixed_space;
      break;
    default: break;
  }
  if (space) return space;
  for (const auto& a : args)
    if (auto* t = ir::tile_type(a); t && t->memory) return t->memory;
  return std::nullopt;
}

// `type` with `space` on each tile (or tuple element) that has none. Re-wrapping through
// make_tile_type canonicalises the view against that space.
inline Type with_memory(const Type& type, ir::MemorySpace space) {
  auto restamp = [&](const Type& t) -> Type {
    auto* tile = ir::as<ir::TileType>(t);
    if (!tile || tile->memory) return t;
    return ir::make_tile_type(tile->shape, tile->dtype, tile->view, space, tile->memref);
  };
  if (auto* tuple = ir::as<ir::TupleType>(type)) {
    std::vector<Type> elements;
    bool changed = false;
    for (const auto& e : tuple->elements) {
      elements.push_back(restamp(e));
      changed = changed || elements.back() != e;
    }
    return changed ? ir::make_type(ir::TupleType{std::move(elements)}) : type;
  }
  return restamp(type);
}

inline Type stamp_memory(const OpInfo& info, const Type& type, const std::vector<Expr>& args, const Kwargs& kwargs) {
  auto space = memory_to_stamp(info, type, args, kwargs);
  return space ? with_memory(type, *space) : type;
}

// The type create_call gives a call: validated, deduced (or `annotated`, for ops without a
// deducer) and stamped.
inline Type call_type(const OpInfo& info, const std::vector<Expr>& args, const Kwargs& kwargs,
                      const Span& span, Type annotated = nullptr) {
  validate_call(info, args, kwargs, span);
  Type type;
  if (auto deduced = deduce_type(info, args, kwargs, span)) {
    type = std::move(*deduced);
  } else if (annotated) {
    type = std::move(annotated);
  } else {
    ir::throw_user_error(info.name,
                         info.name + " has no type deduction; annotate the result type (x: pl.Tile[...] = ...)",
                         span);
  }
  return stamp_memory(info, type, args, kwargs);
}

// Validates, deduces and stamps; `annotated` supplies the type of ops without a deducer.
// Passes that already hold the op's row (looked up once by OpId) call this form: no name
// lookup per call.
inline Expr create_call(const OpInfo& info, std::vector<Expr> args, Kwargs kwargs, Span span,
                        Type annotated = nullptr) {
  Type type = call_type(info, args, kwargs, span, std::move(annotated));
  return ir::make_call(info.id, std::move(args), std::move(kwargs), std::move(type), std::move(span));
}

inline Expr create_call(const Registry& registry, std::string_view op, std::vector<Expr> args, Kwargs kwargs,
                        Span span, Type annotated = nullptr) {
  const OpInfo& info = lookup_op(registry, op, span);
  return create_call(info, std::move(args), std::move(kwargs), std::move(span), std::move(annotated));
}

}  // namespace tilewright::ops
