#pragma once
// The values the reference interpreter computes with.
//
// * A tile is a value: a logical row-major array with a shape, a valid region and one
//   "defined" bit per element. Storage (memory space, layout, MemRef) is not modelled, so
//   two tiles that share a buffer on the device are two independent values here.
// * A tensor is a reference to one raw buffer of elements. How a program reads and writes
//   it (shape, strides, layout, valid region) comes from the static type of the expression
//   it is used through, so a wrong stride in a type changes what a kernel reads.
// * Scalars carry their dtype and a defined bit (a tile.read of an undefined element).
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "tilewright/ir/diagnostic.hpp"
#include "tilewright/ir/enums.hpp"
#include "tilewright/ir/span.hpp"

namespace tilewright::interp {

using ir::DataType;
using Dims = std::vector<std::int64_t>;

// Saturates at INT64_MAX: a shape from the text may name more elements than 64 bits count,
// and such a count must reach the budget check below, not overflow.
inline std::int64_t element_count(const Dims& d) noexcept {
  std::int64_t n = 1;
  for (auto x : d) {
    if (x <= 0) return 0;
    if (__builtin_mul_overflow(n, x, &n)) return INT64_MAX;
  }
  return n;
}

inline std::string dims_string(const Dims& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

struct Scalar {
  DataType dtype = DataType::INDEX;
  double value = 0.0;
  bool defined = true;
};

struct Tile {
  DataType dtype = DataType::FP32;
  Dims shape;
  Dims valid;  // the valid region, one extent per axis, each within [0, shape]
  std::vector<double> data;
  std::vector<std::uint8_t> defined;

  Tile() = default;
  Tile(DataType dt, Dims s, Dims v) : dtype(dt), shape(std::move(s)), valid(std::move(v)) {
    auto n = static_cast<std::size_t>(element_count(shape));
    data.assign(n, 0.0);
    defined.assign(n, 0);
  }
  [[nodiscard]] std::size_t size() const noexcept { return data.size(); }
  [[nodiscard]] std::size_t rank() const noexcept { return shape.size(); }
};
using TilePtr = std::shared_ptr<const Tile>;

// One raw memory buffer: a tensor parameter's, or one tensor.create allocated.
struct Buffer {
  std::string name;
  DataType dtype = DataType::FP32;
  // A tensor.slice's copy of its window (tile_ops.hpp): a write into it would not reach the
  // source it views, so writes refuse to run rather than compute the wrong thing.
  bool slice_copy = false;
  std::vector<double> data;
  std::vector<std::uint8_t> defined;
};

struct TensorRef {
  std::shared_ptr<Buffer> buffer;
};

// What an op returns that is no number: an allocation (tile.alloc), a task id, a marker.
struct Opaque {
  std::string what;
};

struct Value;
using TupleRef = std::shared_ptr<const std::vector<Value>>;

struct Value {
  std::variant<std::monostate, Scalar, TilePtr, TensorRef, TupleRef, Opaque> v;

  Value() = default;
  Value(Scalar s) : v(s) {}                   // NOLINT: values convert freely
  Value(TilePtr t) : v(std::move(t)) {}       // NOLINT
  Value(TensorRef t) : v(std::move(t)) {}     // NOLINT
  Value(TupleRef t) : v(std::move(t)) {}      // NOLINT
  Value(Opaque o) : v(std::move(o)) {}        // NOLINT

  [[nodiscard]] const Scalar* scalar() const noexcept { return std::get_if<Scalar>(&v); }
  [[nodiscard]] const Tile* tile() const noexcept {
    auto* t = std::get_if<TilePtr>(&v);
    return t ? t->get() : nullptr;
  }
  [[nodiscard]] const TilePtr* tile_ptr() const noexcept { return std::get_if<TilePtr>(&v); }
  [[nodiscard]] const TensorRef* tensor() const noexcept { return std::get_if<TensorRef>(&v); }
  [[nodiscard]] const std::vector<Value>* tuple() const noexcept {
    auto* t = std::get_if<TupleRef>(&v);
    return t ? t->get() : nullptr;
  }
  [[nodiscard]] bool empty() const noexcept { return v.index() == 0; }
};

inline Value make_tuple_value(std::vector<Value> elements) {
  return Value(std::make_shared<const std::vector<Value>>(std::move(elements)));
}

// Why a run stopped. `unsupported`: the program uses an op or dtype the interpreter does not
// model. `cannot_run`: the program is fine but not with these inputs (a window past a
// tensor for the drawn dims, a loop that never ends). `invalid`: the program contradicts
// itself (a value of the wrong kind, a shape its type does not have).
enum class RunErrorKind : std::uint8_t { unsupported, cannot_run, invalid };

class RunError : public std::runtime_error {
 public:
  RunError(RunErrorKind kind, std::string message, ir::Span span = {})
      : std::runtime_error(message), kind_(kind), span_(std::move(span)) {}
  [[nodiscard]] RunErrorKind kind() const noexcept { return kind_; }
  [[nodiscard]] const ir::Span& span() const noexcept { return span_; }

 private:
  RunErrorKind kind_;
  ir::Span span_;
};

// The most elements one tensor buffer or tile may hold in a run (16 Mi: about 150 MB with
// its defined bits). A run needs memory for everything it allocates, several times over in
// an equivalence check, so a larger one is refused up front, at the value's location, with
// its size, rather than left to exhaust memory (issue 34).
inline constexpr std::int64_t k_max_run_elements = std::int64_t{1} << 24;

inline std::size_t run_allocation(std::int64_t count, const std::string& what, const ir::Span& span) {
  if (count < 0 || count > k_max_run_elements)
    throw RunError(RunErrorKind::unsupported,
                   what + " needs " + (count == INT64_MAX ? std::string("more than 2^63") : std::to_string(count)) +
                       " elements, more than the " + std::to_string(k_max_run_elements) +
                       " the interpreter allocates for one value; run the program with smaller shapes (--dims=NAME=N "
                       "for its dynamic ones)",
                   span);
  return static_cast<std::size_t>(count);
}

// Something a run did that is not an error but deserves a word: an undefined element
// stored into a tensor's valid region.
struct RunNote {
  std::string message;
  ir::Span span;
};

// What the interpreter says, as a diagnostic to render: a note it made on the way is a
// warning, a run it stopped an error.
inline ir::Diagnostic as_diagnostic(const RunNote& n) {
  return ir::Diagnostic{ir::Severity::warning, ir::ErrorKind::user, "interp", n.message, n.span, {}};
}
inline ir::Diagnostic as_diagnostic(const RunError& e) {
  return ir::Diagnostic{ir::Severity::error, ir::ErrorKind::user, "interp", e.what(), e.span(), {}};
}

}  // namespace tilewright::interp
