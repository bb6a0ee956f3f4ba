#pragma once
// The Parser: its state, and one declaration per production. The productions are defined by
// concept in the headers beside this one (named in each group below), the way a large
// recursive-descent parser splits one class over several files; text/parser.hpp includes
// them all.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tilewright/ir/function.hpp"
#include "tilewright/ir/type_intern.hpp"
#include "tilewright/ops/registry.hpp"
#include "tilewright/text/lexer.hpp"
#include "tilewright/text/parse/token_cursor.hpp"
#include "tilewright/text/parse/values.hpp"

namespace tilewright::text::parser_detail {

class Parser : TokenCursor {
 public:
  Parser(std::string_view src, std::string file, const ops::Registry& reg)
      : TokenCursor(src, std::move(file)), reg_(reg) {
    reg_.for_each([&](const ops::OpInfo& info) { op_names_.emplace(info.name, &info); });
    // The names rows print some calls by (TextForm) read back as those rows, over any op
    // registered under the same name: the printer means the row that wrote it.
    reg_.for_each([&](const ops::OpInfo& info) {
      if (!info.text.constant_operand_name.empty()) op_names_[info.text.constant_operand_name] = &info;
      if (!info.text.unified_name.empty()) unified_names_.emplace(info.text.unified_name, &info);
    });
  }

  ir::Program run();

 private:
  // ---- per-function and per-construct state
  struct FnState {
    std::string name;
    Span span;
    ir::FunctionType type = ir::FunctionType::Opaque;
    std::optional<ir::Level> level;
    std::optional<ir::Role> role;
    ir::Kwargs attrs;
    std::vector<ir::Param> params;
    std::vector<Type> returns;
    std::optional<Checkpoint> body;  // where the body starts, to come back after the signatures
    std::unordered_map<std::string, Expr> scope;
    std::unordered_map<std::string, Expr> ptrs;  // MemRef bases, interned by name
    std::optional<bool> strict_ssa;               // @pl.function(strict_ssa=...)
    // Under strict_ssa: where each name was assigned, per block ("name#block").
    std::unordered_map<std::string, Span> assigned_in;
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

  // ---- attributes.hpp: describing values, kwarg and attribute values
  std::string describe_val(const PVal& v) const;
  std::string raw_text(const PVal& v) const;
  ir::AttrValue attr_value(std::string_view key, const PVal& v, const ops::KwargSpec* spec);
  std::optional<ir::PadValue> pad_value_literal(std::string_view key, const PVal& v);
  ir::Kwargs attrs_dict(const PVal& v);
  template <class E>
  E enum_kw(const PVal& v, std::string_view family, std::string_view key);

  // ---- expressions.hpp: scalar expressions (§4.3) and names
  const ir::ScalarType& scalar_operand(const Expr& e, const Span& s, std::string_view op) const;
  static Expr cast_to(const Expr& e, ir::DataType dt);
  Expr make_binary(ir::BinaryOp op, std::string_view spelling, const PVal& l, const PVal& r,
                   const Span& span);
  Expr value_expr(const PVal& v, std::string_view what);
  Type tuple_type_of(const std::vector<Expr>& els);
  PVal nested(Expr e, Span s, std::uint32_t below) const;
  PVal with_items_depth(PVal v) const;
  PVal binary_val(ir::BinaryOp op, std::string_view spelling, const PVal& l, const PVal& r, const Span& span);
  PVal parse_expr();
  PVal parse_or();
  PVal parse_and();
  PVal parse_not();
  std::optional<std::pair<ir::BinaryOp, std::string_view>> cmp_op() const;
  PVal parse_cmp();
  template <class Next>
  PVal parse_left_assoc(Next next, std::initializer_list<std::pair<TokenKind, ir::BinaryOp>> ops,
                        std::initializer_list<std::string_view> spellings);
  PVal parse_bitor();
  PVal parse_bitxor();
  PVal parse_bitand();
  PVal parse_shift();
  PVal parse_arith();
  PVal parse_term();
  PVal parse_unary();
  PVal parse_power();
  PVal parse_primary();
  PVal parse_atom();
  const Expr* lookup_bound(const std::string& name) const;
  Expr resolve_name(const std::string& name, const Span& s);
  Expr dynamic_var(const std::string& name, const Span& s);

  // ---- calls.hpp: call arguments, op calls, DSL sugar (§6.1), function calls and submits
  const ops::OpInfo* find_op(const std::string& name) const;
  std::string suggest(std::string_view name, const std::vector<std::string>& pool) const;
  [[noreturn]] void unknown_op(const std::string& name, const Span& s) const;
  CallArgs parse_call_args(std::string_view callee);
  static const PVal* kwarg(const CallArgs& a, std::string_view key);
  static void drop_kwarg(CallArgs& a, std::string_view key);
  void no_kwargs(const CallArgs& a, std::string_view callee) const;
  void arity(const CallArgs& a, std::size_t lo, std::size_t hi, std::string_view callee,
             const Span& s) const;
  PVal call_path(const std::string& path, const Span& s);
  PVal call_target(const std::string& path, const Span& s);
  Expr parse_const(const Span& s);
  Expr parse_cast(const Span& s);
  Expr sugar_call(const std::string& op, CallArgs a, const Span& s);
  Expr sugar_dispatch(const std::string& op, CallArgs a, const Span& s);
  Expr build_op(const std::string& name, CallArgs a, const Span& s);
  FnState* find_fn(const std::string& name);
  [[noreturn]] void unknown_function(const std::string& name, const Span& s) const;
  static Type returns_type(std::vector<Type> returns);
  ir::Kwargs call_kwargs(const CallArgs& a, ir::Kwargs* attrs);
  Expr function_call(const std::string& name, CallArgs a, const Span& s);
  Expr parse_submit(const std::string& path, const Span& s);

  // ---- types.hpp: type annotations (§2)
  ir::DataType parse_dtype(std::string_view context);
  Expr parse_dim(std::string_view owner);
  std::vector<Expr> parse_shape(std::string_view owner);
  std::vector<Expr> dims_of(const PVal& v, std::string_view what);
  Expr parse_memref();
  Expr ptr_var(const std::string& name, bool bare, const Span& s);
  std::optional<ir::TensorView> parse_tensor_view();
  ir::TileView parse_tile_view(const std::vector<Expr>& shape, std::optional<ir::MemorySpace> mem,
                               const CallArgs& a);
  Type parse_type();
  Type parse_type_text();
  Type remembered_annotation();
  void remember_annotation(std::size_t first, const Type& t);
  void check_view_rank(const std::vector<Expr>& valid, const std::vector<Expr>& stride,
                       const std::vector<Expr>& shape, std::string_view owner,
                       std::string_view view, const Span& s) const;
  void check_extents(const std::vector<Expr>& shape, ir::DataType dt, std::string_view owner, bool tile,
                     const Span& s) const;
  Type parse_tensor_type(bool distributed, const Span& s);
  Type parse_tile_type(const Span& s);

  // ---- statements.hpp: blocks, simple statements and assignments (§3.1–§3.2)
  static Stmt with_comments(const Stmt& s, std::vector<std::string> lines);
  std::vector<Stmt> parse_suite(std::string_view what);
  void block_rest(std::vector<Stmt>& out);
  void parse_statement(std::vector<Stmt>& out);
  void parse_simple_line(std::vector<Stmt>& out);
  TokenKind line_assign_kind() const;
  void parse_simple(std::vector<Stmt>& out);
  PVals parse_expr_list();
  void check_returns(const std::vector<Expr>& vals, const PVals& written, const Span& s) const;
  void parse_annotated_assign(std::vector<Stmt>& out);
  void finish_assign(const Token& name, Type ann, const Span& ann_span, const PVal& rhs,
                     const Span& s, std::vector<Stmt>& out);
  Expr name_from_assignment(const Expr& v, const std::string& lhs) const;
  [[noreturn]] void annotation_conflict(const std::string& name, const Type& ann, const Type& val,
                                        const std::string& problem, const Span& s) const;
  void check_compatible(const Type& ann, const Type& val, const Span& s,
                        const std::string& name) const;
  Expr define(const Token& name, const Type& t, bool ptr);
  void check_single_assignment(const Token& name);
  bool strict_ssa_flag(const PVal& v) const;
  Expr fresh(const std::string& name, const Type& t, const Span& s);
  void parse_assign(std::vector<Stmt>& out);
  void parse_aug_assign(std::vector<Stmt>& out);
  void parse_expr_stmt(std::vector<Stmt>& out);

  // ---- control_flow.hpp: yields, if, for, while and with (§3.3–§3.7)
  bool at_yield_call() const;
  std::vector<Expr> parse_yield_values();
  void record_yield(std::vector<const Token*> names, Type ann, const std::vector<Expr>& vals,
                    const Span& s);
  static const ir::StmtNode* closing_yield(const std::vector<Stmt>& body);
  void check_closing_yields(YieldCtx& c, const std::vector<Stmt>& body,
                            std::string_view block) const;
  static std::string target_list(const std::vector<std::string>& names);
  Expr bool_cond(const PVal& v, std::string_view what);
  void parse_if(std::vector<Stmt>& out);
  Target parse_target_atom();
  Target parse_target_list(TokenKind stop);
  std::vector<Expr> init_values(const PVal* v);
  std::vector<Expr> make_iter_args(const std::vector<Target>& names, const std::vector<Expr>& inits,
                                   const Span& s);
  std::vector<Expr> loop_return_vars(const YieldCtx& c, const std::vector<Expr>& iter_args,
                                     const Span& loop);
  void parse_for(std::vector<Stmt>& out);
  void parse_while_loop(const Target& tgt, const Span& s, std::vector<Stmt>& out);
  void parse_while(std::vector<Stmt>& out);
  ir::Kwargs scope_params(const CallArgs& a, std::vector<Expr>* args, bool enum_positionals);
  void parse_scope_loop(const Target& tgt, const std::string& kind, const Span& s,
                        std::vector<Stmt>& out);
  void parse_with(std::vector<Stmt>& out);

  // ---- module.hpp: functions, pl.dynamic declarations and the module (§1)
  void parse_function_header(FnState& f);
  void skip_body();
  ir::Function parse_function_body(FnState& f);
  void parse_module_assign();
  void parse_dynamic_decl(const Token& name);
  void skip_import();

  const ops::Registry& reg_;
  std::unordered_map<std::string, const ops::OpInfo*> op_names_;
  std::unordered_map<std::string, const ops::OpInfo*> unified_names_;  // `pl.load` → tile.load
  // Every tensor, tile and tuple type the parse makes (annotations, deduced results, their
  // reconciliation) is interned: a kernel's lines share a handful of type nodes.
  ir::TypeInterner types_;
  // Tensor, tile and tuple annotations by their source text, so that a line repeating an
  // earlier line's annotation is not parsed again. Text alone does not settle a type: its
  // names (a dynamic dim, a buffer's base) are read through the scope, so an entry also keeps
  // what each name it reads was bound to, and serves only where all are bound alike.
  struct NameBinding {
    std::string name;  // owned: the token it was read from is released with its statement
    std::array<Expr, 4> bound;  // in the scope, as a dynamic dim, a buffer base, a constant
  };
  struct RememberedAnnotation {
    Type type;
    std::size_t tokens = 0;
    std::vector<NameBinding> names;
  };
  std::array<Expr, 4> binding_of(std::string_view name) const;
  std::unordered_map<std::string_view, RememberedAnnotation> annotations_;
  // The tuple types of short lists by their element type nodes (tuple_type_of). An entry
  // keeps those nodes alive: a key's address must not come to name another type.
  struct TupleTypeKey {
    static constexpr std::size_t kMax = 4;
    std::array<const ir::TypeNode*, kMax> elements{};
    std::size_t count = 0;
    friend bool operator==(const TupleTypeKey&, const TupleTypeKey&) = default;
  };
  struct TupleTypeKeyHash {
    std::size_t operator()(const TupleTypeKey& k) const noexcept {
      std::size_t h = k.count;
      for (const ir::TypeNode* e : k.elements) h = h * 1000003u ^ std::hash<const ir::TypeNode*>{}(e);
      return h;
    }
  };
  struct RememberedTupleType {
    std::array<Type, TupleTypeKey::kMax> elements;
    Type type;
  };
  std::unordered_map<TupleTypeKey, RememberedTupleType, TupleTypeKeyHash> tuple_types_;
  // Deduced result types with a memory space stamped on (ops::with_memory), by the interned
  // deduced type and the space: a kernel stamps the same few types on every line. The
  // interner keeps each key's node alive.
  using StampedBySpace = std::array<Type, ir::enum_table<ir::MemorySpace>.names.size()>;
  std::unordered_map<const ir::TypeNode*, StampedBySpace> stamped_;
  Type stamped(const ops::OpInfo& info, const Type& deduced, const std::vector<Expr>& args,
               const ir::Kwargs& kwargs);
  bool type_ctx_ = false;
  std::unordered_map<std::string, Expr> dyn_;
  // The items of the lists and argument lists being read, innermost last. Each list moves
  // its items out into a vector of their exact number once it is closed: a PVal is large,
  // and a guessed capacity cost more than the items of a typical `[0, 0]`.
  PVals pending_;
  PVals take_pending(std::size_t mark) {
    PVals out(std::make_move_iterator(pending_.begin() + static_cast<std::ptrdiff_t>(mark)),
                          std::make_move_iterator(pending_.end()));
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(mark), pending_.end());
    return out;
  }
  std::uint32_t call_arg_depth_ = 0;  // expression depth of the last argument list read
  std::unordered_map<std::string, Expr> consts_;  // module constants: their folded literal values
  std::vector<FnState> fns_;
  FnState* fn_ = nullptr;
  std::vector<YieldCtx> yields_;
  std::vector<std::string> carried_;
  std::optional<bool> program_strict_ssa_;  // @pl.program(strict_ssa=...): wins over a function's
  bool strict_ssa_ = false;                 // for the function being read
  std::uint32_t block_ = 0, blocks_ = 0;    // the block being read, and how many were opened
  int nest_ = 0;             // blocks open inside the current function body (0: its top level)
  Type rhs_ann_;             // annotation of the assignment whose value is being parsed
  std::size_t rhs_tok_ = 0;  // first token of that value
  // First token of the expression statement being parsed (none: max): an op call there
  // needs no result type.
  static constexpr std::size_t kNoToken = std::numeric_limits<std::size_t>::max();
  std::size_t eval_tok_ = kNoToken;
};

}  // namespace tilewright::text::parser_detail
