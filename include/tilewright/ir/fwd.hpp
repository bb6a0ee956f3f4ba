#pragma once
// Handles to the three node families. Nodes are immutable and shared: a rewrite that
// changes nothing hands back the very same pointer, so "unchanged" is a pointer compare.
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace tilewright::ir {

struct TypeNode;
struct ExprNode;
struct StmtNode;
struct FunctionNode;
struct ProgramNode;

using Type = std::shared_ptr<const TypeNode>;
using Expr = std::shared_ptr<const ExprNode>;
using Stmt = std::shared_ptr<const StmtNode>;
using Function = std::shared_ptr<const FunctionNode>;
using Program = std::shared_ptr<const ProgramNode>;

// A Var's name hint. Names are for people: structural equality and hashing ignore them.
struct Name {
  std::string text;
  friend bool operator==(const Name&, const Name&) noexcept { return true; }
};

// Leading `# …` comments of a statement; ignored by equality like names and spans.
struct Comments {
  std::vector<std::string> lines;
  friend bool operator==(const Comments&, const Comments&) noexcept { return true; }
};

// Visits the active alternative with an if-chain over `index()` that compilers lower to a
// jump table; std::visit's exception path and its instantiation cost stay out of headers.
template <std::size_t I = 0, class Variant, class F>
decltype(auto) dispatch(Variant&& v, F&& f) {
  using V = std::remove_cvref_t<Variant>;
  if constexpr (I + 1 == std::variant_size_v<V>) {
    return f(*std::get_if<I>(&v));
  } else {
    if (v.index() == I) return f(*std::get_if<I>(&v));
    return dispatch<I + 1>(std::forward<Variant>(v), std::forward<F>(f));
  }
}

template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

}  // namespace tilewright::ir
