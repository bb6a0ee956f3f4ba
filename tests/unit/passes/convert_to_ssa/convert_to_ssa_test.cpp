// ConvertToSSA (issue 11): fresh names, loop carries, if merges, in upstream's carry order;
// identity on SSA input; diagnostics for reads with no value. Also the SSA verifier's located
// findings and the pipeline check that names the pass establishing a missing property.
//
// Inputs are DSL text as users write it (plain re-assignment, Python `while`, `for i in
// pl.range(n)` with no init_values); expected results are written in SSA form and compared
// structurally (names ignored, so only positions and values pin the carry order).
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/pass/verify.hpp"
#include "tilewright/passes/convert_to_ssa/pass.hpp"
#include "tilewright/passes/pipeline_check.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"

namespace {

using namespace tilewright;

ir::Program parse(std::string_view src) { return text::parse_program(src, "t.pto"); }

ir::Program convert(const ir::Program& p) {
  pass::PassContext ctx;
  return passes::convert_to_ssa(p, ctx);
}

// Converts `before`, requires the result to be in SSA form and structurally equal to `after`,
// and returns it.
ir::Program check_converts(std::string_view before, std::string_view after) {
  ir::Program input = parse(before);
  ir::Program result = convert(input);
  ir::Diagnostics problems = pass::verify(pass::Property::SSAForm, result);
  CHECK_MESSAGE(problems.empty(), (problems.empty() ? std::string() : problems.front().message));
  ir::Program expected = parse(after);
  auto difference = ir::structural_difference(result, expected);
  CHECK_MESSAGE(!difference.has_value(), (difference ? *difference : std::string()) << "\n" << text::print(result));
  CHECK(convert(result) == result);  // idempotent: a second run returns the very same program
  return result;
}

// The diagnostic of a failing conversion, as "line:col: message".
std::string conversion_error(std::string_view src) {
  ir::Program p = parse(src);
  try {
    convert(p);
  } catch (const ir::Error& e) {
    const auto& d = e.diagnostic();
    CHECK(d.origin == "ConvertToSSA");
    CHECK(d.kind == ir::ErrorKind::user);
    return std::to_string(d.span.line) + ":" + std::to_string(d.span.column) + ": " + d.message;
  }
  FAIL("the conversion succeeded");
  return {};
}

const ir::FunctionNode& only_function(const ir::Program& p) {
  REQUIRE(p->functions.size() == 1);
  return *p->functions.front();
}
std::vector<ir::Stmt> body(const ir::Program& p) { return ir::body_stmts(only_function(p).body); }

std::string names(const std::vector<ir::Expr>& vars) {
  std::string out;
  for (const auto& v : vars) {
    if (!out.empty()) out += ',';
    out += ir::name_hint(v);  // appended, not `"," + std::string(..)`: g++ 12 -O3 warns on that (-Wrestrict)
  }
  return out;
}

}  // namespace

// ---- straight-line code and parameters -----------------------------------------------------

TEST_CASE("ConvertToSSA: each re-assignment gets a fresh Var; reads see the latest one") {
  ir::Program result = check_converts(R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        a = pl.add(x, 1.0)
        b = pl.mul(x, 2.0)
        a = pl.add(a, 3.0)
        b = pl.mul(b, a)
        a = pl.add(a, b)
        return a
)",
                                      R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        a0: pl.Tensor[[64], pl.FP32] = pl.add(x, 1.0)
        b0: pl.Tensor[[64], pl.FP32] = pl.mul(x, 2.0)
        a1: pl.Tensor[[64], pl.FP32] = pl.add(a0, 3.0)
        b1: pl.Tensor[[64], pl.FP32] = pl.mul(b0, a1)
        a2: pl.Tensor[[64], pl.FP32] = pl.add(a1, b1)
        return a2
)");
  // The first definition keeps its Var (and name); later ones are fresh and say so.
  auto stmts = body(result);
  CHECK(ir::name_hint(ir::as<ir::Assign>(stmts[0])->var) == "a");
  CHECK(ir::name_hint(ir::as<ir::Assign>(stmts[2])->var) == "a__ssa_v1");
  CHECK(ir::name_hint(ir::as<ir::Assign>(stmts[4])->var) == "a__ssa_v2");
}

TEST_CASE("ConvertToSSA: a re-assigned parameter keeps the parameter and gets a fresh Var (seed 000's out_0)") {
  const char* src = R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out_0: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        out_0 = pl.store(t, [0, 0], out_0)
        return out_0
)";
  ir::Program input = parse(src);
  // Issue 35: already SSA as upstream counts it (a parameter may be assigned once at top
  // level); the pass still gives the store a result Var of its own.
  CHECK(pass::verify(pass::Property::SSAForm, input).empty());
  check_converts(src, R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out_0: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 64])
        out_1: pl.Tensor[[16, 64], pl.FP32] = pl.store(t, [0, 0], out_0)
        return out_1
)");
  ir::Program result = convert(input);
  const auto& f = only_function(result);
  CHECK(f.params[1].var == only_function(input).params[1].var);  // the parameter is untouched
  auto store = ir::as<ir::Assign>(body(result)[1]);
  CHECK(ir::as<ir::Call>(store->value)->args[2] == f.params[1].var);  // the store reads the parameter
  CHECK(ir::as<ir::Return>(body(result)[2])->values[0] == store->var);
}

TEST_CASE("ConvertToSSA: a program already in SSA form comes back as the very same objects") {
  ir::Program input = parse(R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INT64]) -> pl.Tensor[[64], pl.FP32]:
        init: pl.Tensor[[64], pl.FP32] = pl.create_tensor([64], dtype=pl.FP32)
        for i, (acc,) in pl.range(10, init_values=(init,)):
            if i == 0:
                v = pl.mul(acc, 2.0)
                out = pl.yield_(v)
            else:
                out = pl.yield_(acc)
            result = pl.yield_(out)
        for (c,) in pl.while_(init_values=(n,)):
            pl.cond(c > 0)
            c1 = c - 1
            d = pl.yield_(c1)
        return result
)");
  REQUIRE(pass::verify(pass::Property::SSAForm, input).empty());
  pass::PassContext ctx;
  CHECK(passes::convert_to_ssa(input, ctx) == input);
  CHECK(ctx.stats.counts().empty());
}

// ---- loops ------------------------------------------------------------------------------------

TEST_CASE("ConvertToSSA: a name re-assigned in a for body becomes an iter_arg, a yield and a return var") {
  ir::Program result = check_converts(R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        acc: pl.Tensor[[64], pl.FP32] = pl.create_tensor([64], dtype=pl.FP32)
        for i in pl.range(10):
            acc = pl.add(acc, x)
        final = pl.mul(acc, 2.0)
        return final
)",
                                      R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        acc0: pl.Tensor[[64], pl.FP32] = pl.create_tensor([64], dtype=pl.FP32)
        for i, (acc_it,) in pl.range(10, init_values=(acc0,)):
            acc1: pl.Tensor[[64], pl.FP32] = pl.add(acc_it, x)
            acc_rv = pl.yield_(acc1)
        final: pl.Tensor[[64], pl.FP32] = pl.mul(acc_rv, 2.0)
        return final
)");
  auto* loop = ir::as<ir::For>(body(result)[1]);
  REQUIRE(loop);
  CHECK(names(loop->iter_args) == "acc__iter_v1");
  CHECK(names(loop->return_vars) == "acc__rv_v3");
}

TEST_CASE("ConvertToSSA: nested loops carry what their bodies re-assign, in name order (inner before outer)") {
  // upstream: test_nested_for_loops_multiple_vars_plain — `outer` is assigned first, yet the
  // outer loop carries (inner, outer).
  ir::Program result = check_converts(R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        outer: pl.Tensor[[64], pl.FP32] = x
        inner: pl.Tensor[[64], pl.FP32] = pl.mul(x, 2.0)
        for i in pl.range(2):
            for j in pl.range(3):
                inner = pl.add(inner, 1.0)
            outer = pl.add(outer, inner)
        return outer
)",
                                      R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        outer0: pl.Tensor[[64], pl.FP32] = x
        inner0: pl.Tensor[[64], pl.FP32] = pl.mul(x, 2.0)
        for i, (inner_i, outer_i) in pl.range(2, init_values=(inner0, outer0)):
            for j, (inner_j,) in pl.range(3, init_values=(inner_i,)):
                inner1: pl.Tensor[[64], pl.FP32] = pl.add(inner_j, 1.0)
                inner_j_rv = pl.yield_(inner1)
            outer1: pl.Tensor[[64], pl.FP32] = pl.add(outer_i, inner_j_rv)
            inner_rv, outer_rv = pl.yield_(inner_j_rv, outer1)
        return outer_rv
)");
  auto* loop = ir::as<ir::For>(body(result)[2]);
  REQUIRE(loop);
  CHECK(names(loop->iter_args) == "inner__iter_v1,outer__iter_v1");
}

TEST_CASE("ConvertToSSA: a loop that only defines temporaries carries nothing and is unchanged") {
  const char* src = R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        for i in pl.range(5):
            temp: pl.Tensor[[64], pl.FP32] = pl.mul(x, 2.0)
            pl.add(temp, 1.0)
        return x
)";
  ir::Program input = parse(src);
  CHECK(convert(input) == input);
}

TEST_CASE("ConvertToSSA: a Python while becomes pl.while_ + pl.cond; carries in name order (acc before i)") {
  // upstream: test_while_with_tensor_operations — `i` is assigned first in the body.
  check_converts(R"(
@pl.program
class P:
    @pl.function
    def main(self, n: pl.Scalar[pl.INT64], x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        i: pl.Scalar[pl.INT64] = 0
        acc: pl.Tensor[[64], pl.FP32] = pl.create_tensor([64], dtype=pl.FP32)
        while i < n:
            i = i + 1
            acc = pl.add(acc, x)
        return acc
)",
                 R"(
@pl.program
class P:
    @pl.function
    def main(self, n: pl.Scalar[pl.INT64], x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        i0: pl.Scalar[pl.INT64] = 0
        acc0: pl.Tensor[[64], pl.FP32] = pl.create_tensor([64], dtype=pl.FP32)
        for (acc1, i1) in pl.while_(init_values=(acc0, i0)):
            pl.cond(i1 < n)
            i2: pl.Scalar[pl.INT64] = i1 + 1
            acc2: pl.Tensor[[64], pl.FP32] = pl.add(acc1, x)
            acc3, i3 = pl.yield_(acc2, i2)
        return acc3
)");
}

TEST_CASE("ConvertToSSA: nested while loops each carry their own counter") {
  // upstream: test_nested_while_loops — y is defined inside the outer body, so only the inner
  // loop carries it.
  check_converts(R"(
@pl.program
class P:
    @pl.function
    def main(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        x: pl.Scalar[pl.INT64] = 0
        while x < n:
            y: pl.Scalar[pl.INT64] = 0
            while y < 3:
                y = y + 1
            x = x + 1
        return x
)",
                 R"(
@pl.program
class P:
    @pl.function
    def main(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        x0: pl.Scalar[pl.INT64] = 0
        for (x1,) in pl.while_(init_values=(x0,)):
            pl.cond(x1 < n)
            y0: pl.Scalar[pl.INT64] = 0
            for (y1,) in pl.while_(init_values=(y0,)):
                pl.cond(y1 < 3)
                y2: pl.Scalar[pl.INT64] = y1 + 1
                y3 = pl.yield_(y2)
            x2: pl.Scalar[pl.INT64] = x1 + 1
            x3 = pl.yield_(x2)
        return x3
)");
}

TEST_CASE("ConvertToSSA: implicit carries follow the iter_args the input spells") {
  check_converts(R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        b: pl.Tensor[[64], pl.FP32] = x
        init: pl.Tensor[[64], pl.FP32] = pl.create_tensor([64], dtype=pl.FP32)
        for i, (acc,) in pl.range(4, init_values=(init,)):
            b = pl.mul(b, 2.0)
            nxt = pl.add(acc, b)
            res = pl.yield_(nxt)
        out = pl.add(res, b)
        return out
)",
                 R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        b0: pl.Tensor[[64], pl.FP32] = x
        init: pl.Tensor[[64], pl.FP32] = pl.create_tensor([64], dtype=pl.FP32)
        for i, (acc, b1) in pl.range(4, init_values=(init, b0)):
            b2: pl.Tensor[[64], pl.FP32] = pl.mul(b1, 2.0)
            nxt: pl.Tensor[[64], pl.FP32] = pl.add(acc, b2)
            res, b3 = pl.yield_(nxt, b2)
        out: pl.Tensor[[64], pl.FP32] = pl.add(res, b3)
        return out
)");
}

TEST_CASE("ConvertToSSA: a carry re-assigned in its body and yielded under its own name is the return var after the loop") {
  // The seed's chunk loop: `o = pl.store(t, …, o)`, then the yield in the assignment form
  // the DSL requires (`o = pl.yield_(o)`; the seed's excerpt abbreviates it to `pl.yield_(o)`).
  check_converts(R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for c, (o,) in pl.range(0, 64, 16, init_values=(out,)):
            t = pl.load(x, [c, 0], [16, 64])
            t = pl.tile.exp(t)
            o = pl.store(t, [c, 0], o)
            o = pl.yield_(o)
        return o
)",
                 R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for c, (o,) in pl.range(0, 64, 16, init_values=(out,)):
            t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [c, 0], [16, 64])
            t1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
            o1: pl.Tensor[[64, 64], pl.FP32] = pl.store(t1, [c, 0], o)
            o_rv = pl.yield_(o1)
        return o_rv
)");
}

TEST_CASE("ConvertToSSA: a value first defined in a loop and read after it is carried from the Out parameter") {
  // upstream's "escaping variable": the iter_arg starts from the Out parameter of its type.
  check_converts(R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.range(4):
            t = pl.load(a, [0, 0], [64, 64])
            out = pl.store(t, [0, 0], c)
        return out
)",
                 R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i, (out_it,) in pl.range(4, init_values=(c,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
            out: pl.Tensor[[64, 64], pl.FP32] = pl.store(t, [0, 0], c)
            out_rv = pl.yield_(out)
        return out_rv
)");
}

TEST_CASE("ConvertToSSA: a loop temporary re-defined after the loop is not carried") {
  check_converts(R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.range(4):
            t = pl.load(a, [0, 0], [64, 64])
            c = pl.store(t, [0, 0], c)
        t = pl.load(a, [0, 0], [64, 64])
        c = pl.store(t, [0, 0], c)
        return c
)",
                 R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i, (c1,) in pl.range(4, init_values=(c,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
            c2: pl.Tensor[[64, 64], pl.FP32] = pl.store(t, [0, 0], c1)
            c3 = pl.yield_(c2)
        t2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
        c4: pl.Tensor[[64, 64], pl.FP32] = pl.store(t2, [0, 0], c3)
        return c4
)");
}

TEST_CASE("ConvertToSSA: a loop value read after the loop with nothing to start from is refused, located") {
  CHECK(conversion_error(R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.range(4):
            t = pl.load(a, [0, 0], [64, 64])
        out = pl.store(t, [0, 0], c)
        return out
)") == "6:9: in function 'k': variable 't' is first assigned inside this loop and read after it, but has no value "
       "if the loop runs no iteration; assign it before the loop");
}

// ---- if --------------------------------------------------------------------------------------

TEST_CASE("ConvertToSSA: a name re-assigned in one branch is merged; the other branch yields the incoming value") {
  // upstream: test_if_with_empty_then_branch_plain, test_for_with_if_inside_plain.
  check_converts(R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        result: pl.Tensor[[64], pl.FP32] = x
        for i in pl.range(10):
            if i > 5:
                pass
            else:
                result = pl.add(result, 1.0)
        return result
)",
                 R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        result0: pl.Tensor[[64], pl.FP32] = x
        for i, (r_it,) in pl.range(10, init_values=(result0,)):
            if i > 5:
                r_phi: pl.Tensor[[64], pl.FP32] = pl.yield_(r_it)
            else:
                r1: pl.Tensor[[64], pl.FP32] = pl.add(r_it, 1.0)
                r_phi: pl.Tensor[[64], pl.FP32] = pl.yield_(r1)
            r_rv = pl.yield_(r_phi)
        return r_rv
)");
}

TEST_CASE("ConvertToSSA: an if without else gets an else that yields the incoming values") {
  check_converts(R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], k: pl.Scalar[pl.INT64]) -> pl.Tensor[[64], pl.FP32]:
        b = pl.mul(x, 2.0)
        a = pl.add(x, 1.0)
        if k == 0:
            b = pl.mul(b, 3.0)
            a = pl.add(a, b)
        c = pl.add(a, b)
        return c
)",
                 R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], k: pl.Scalar[pl.INT64]) -> pl.Tensor[[64], pl.FP32]:
        b0: pl.Tensor[[64], pl.FP32] = pl.mul(x, 2.0)
        a0: pl.Tensor[[64], pl.FP32] = pl.add(x, 1.0)
        if k == 0:
            b1: pl.Tensor[[64], pl.FP32] = pl.mul(b0, 3.0)
            a1: pl.Tensor[[64], pl.FP32] = pl.add(a0, b1)
            a2, b2 = pl.yield_(a1, b1)
        else:
            a2, b2 = pl.yield_(a0, b0)
        c: pl.Tensor[[64], pl.FP32] = pl.add(a2, b2)
        return c
)");
}

TEST_CASE("ConvertToSSA: branches that change different names, with a loop in one of them") {
  // upstream: test_complex_nested_control_flow_plain.
  check_converts(R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        a: pl.Tensor[[64], pl.FP32] = x
        b: pl.Tensor[[64], pl.FP32] = pl.mul(x, 2.0)
        for i in pl.range(2):
            if i == 0:
                for j in pl.range(2):
                    a = pl.add(a, 1.0)
            else:
                b = pl.mul(b, 2.0)
        result: pl.Tensor[[64], pl.FP32] = pl.add(a, b)
        return result
)",
                 R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        a0: pl.Tensor[[64], pl.FP32] = x
        b0: pl.Tensor[[64], pl.FP32] = pl.mul(x, 2.0)
        for i, (a1, b1) in pl.range(2, init_values=(a0, b0)):
            if i == 0:
                for j, (a3,) in pl.range(2, init_values=(a1,)):
                    a5: pl.Tensor[[64], pl.FP32] = pl.add(a3, 1.0)
                    a4 = pl.yield_(a5)
                a6, b4 = pl.yield_(a4, b1)
            else:
                b3: pl.Tensor[[64], pl.FP32] = pl.mul(b1, 2.0)
                a6, b4 = pl.yield_(a1, b3)
            a2, b2 = pl.yield_(a6, b4)
        result: pl.Tensor[[64], pl.FP32] = pl.add(a2, b2)
        return result
)");
}

TEST_CASE("ConvertToSSA: a name first assigned inside both branches is merged after the if") {
  check_converts(R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], k: pl.Scalar[pl.INT64]) -> pl.Tensor[[64], pl.FP32]:
        if k == 0:
            y = pl.add(x, 1.0)
            t = pl.add(y, 1.0)
        else:
            y = pl.mul(x, 2.0)
        return y
)",
                 R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], k: pl.Scalar[pl.INT64]) -> pl.Tensor[[64], pl.FP32]:
        if k == 0:
            y0: pl.Tensor[[64], pl.FP32] = pl.add(x, 1.0)
            t: pl.Tensor[[64], pl.FP32] = pl.add(y0, 1.0)
            y: pl.Tensor[[64], pl.FP32] = pl.yield_(y0)
        else:
            y1: pl.Tensor[[64], pl.FP32] = pl.mul(x, 2.0)
            y: pl.Tensor[[64], pl.FP32] = pl.yield_(y1)
        return y
)");
}

TEST_CASE("ConvertToSSA: a name first assigned inside one branch stays local to it") {
  const char* src = R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], k: pl.Scalar[pl.INT64]) -> pl.Tensor[[64], pl.FP32]:
        if k == 0:
            y = pl.add(x, 1.0)
            z = pl.add(y, 1.0)
        return x
)";
  ir::Program input = parse(src);
  CHECK(convert(input) == input);  // nothing to merge, nothing renamed
}

TEST_CASE("ConvertToSSA: a name assigned in one branch only and read after the if is refused, located") {
  CHECK(conversion_error(R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], k: pl.Scalar[pl.INT64]) -> pl.Tensor[[64], pl.FP32]:
        if k == 0:
            y = pl.add(x, 1.0)
        return y
)") == "8:9: in function 'main': variable 'y' has no value here: it is assigned only inside the if (in one "
       "branch), which has ended; assign it in both branches, or before the if");
}

// ---- size: linear in the program and the carries it adds -------------------------------------

namespace {
// `depth` nested loops; the innermost re-assigns `acc` (carried by every loop) and defines
// `temps` temporaries (carried by none).
std::string nested_loops(int depth, int temps) {
  std::string src = "@pl.program\nclass P:\n    @pl.function\n    def main(self, x: pl.Tensor[[64], pl.FP32]) -> "
                    "pl.Tensor[[64], pl.FP32]:\n        acc = x\n";
  std::string indent = "        ";
  for (int d = 0; d < depth; ++d) {
    src += indent + "for i" + std::to_string(d) + " in pl.range(2):\n";
    indent += "    ";
  }
  for (int t = 0; t < temps; ++t) src += indent + "t" + std::to_string(t) + " = pl.add(x, 1.0)\n";
  src += indent + "acc = pl.add(acc, x)\n        return acc\n";
  return src;
}
}  // namespace

TEST_CASE("ConvertToSSA: each of 60 nested loops carries the one re-assigned name, and no temporary") {
  ir::Program result = convert(parse(nested_loops(60, 50)));
  CHECK(pass::verify(pass::Property::SSAForm, result).empty());
  std::size_t loops = 0, carries = 0;
  ir::for_each_stmt(only_function(result).body, [&](const ir::Stmt& s) {
    if (auto* l = ir::as<ir::For>(s)) {
      ++loops;
      carries += l->iter_args.size();
    }
  });
  CHECK(loops == 60);
  CHECK(carries == 60);
}

// ---- the SSA verifier and the pipeline check --------------------------------------------------

TEST_CASE("SSAForm verifier: a re-definition is reported where it happens, with the first definition as a note") {
  ir::Program p = parse(R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        a = pl.add(x, 1.0)
        a = pl.add(a, 2.0)
        return a
)");
  ir::Diagnostics ds = pass::verify(pass::Property::SSAForm, p);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].message == "in function 'main': variable 'a' is assigned more than once, violating SSA form");
  CHECK(ds[0].span.line == 7);
  REQUIRE(ds[0].notes.size() == 1);
  CHECK(ds[0].notes[0].first == "'a' is first defined here");
  CHECK(ds[0].notes[0].second.line == 6);
}

// Issue 35: upstream's verifier counts assignments per Var and a parameter starts at zero,
// so the body may assign a parameter once; we take it at top level (scopes are transparent).
TEST_CASE("SSAForm verifier: a parameter assigned once at top level is SSA; twice, or inside a loop or branch, is not") {
  auto findings = [](const char* body) {
    return pass::verify(pass::Property::SSAForm, parse(std::string(R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], c: pl.Scalar[pl.INT64], out_0: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
)") + body + "        return out_0\n"));
  };
  CHECK(findings("        out_0 = pl.store(t, [0, 0], out_0)\n").empty());
  CHECK(findings("        with pl.scope():\n            out_0 = pl.store(t, [0, 0], out_0)\n").empty());

  ir::Diagnostics twice = findings("        out_0 = pl.store(t, [0, 0], out_0)\n        out_0 = pl.store(t, [0, 0], out_0)\n");
  REQUIRE(twice.size() == 1);
  CHECK(twice[0].message == "in function 'k': variable 'out_0' is assigned more than once, violating SSA form");
  CHECK(twice[0].span.line == 8);
  REQUIRE(twice[0].notes.size() == 1);
  CHECK(twice[0].notes[0].second.line == 7);  // the first assignment, not the parameter

  for (const char* nested : {"        for i in pl.range(2):\n            out_0 = pl.store(t, [0, 0], out_0)\n",
                             "        if c == 0:\n            out_0 = pl.store(t, [0, 0], out_0)\n"}) {
    ir::Diagnostics ds = findings(nested);
    REQUIRE(ds.size() == 1);
    CHECK(ds[0].message.find("parameter 'out_0' is re-assigned inside a loop body or a branch, violating SSA form") !=
          std::string::npos);
    CHECK(ds[0].span.line == 8);
  }
}

TEST_CASE("SSAForm verifier: a read outside the defining branch or loop body is a scope violation") {
  ir::Program p = parse(R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], k: pl.Scalar[pl.INT64]) -> pl.Tensor[[64], pl.FP32]:
        for i in pl.range(3):
            t = pl.add(x, 1.0)
        return t
)");
  ir::Diagnostics ds = pass::verify(pass::Property::SSAForm, p);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].message.find("variable 't' used outside its defining scope") != std::string::npos);
  CHECK(ds[0].span.line == 8);
  REQUIRE(ds[0].notes.size() == 1);
  CHECK(ds[0].notes[0].second.line == 7);
}

TEST_CASE("SSAForm verifier: loop and if arities (iter_args, return vars, yields)") {
  auto i = ir::make_var("i", ir::scalar_type(ir::DataType::INDEX));
  auto x = ir::make_var("x", ir::scalar_type(ir::DataType::INDEX));
  auto ia = ir::make_iter_arg("a", x->type, x);
  auto loop = ir::make_stmt(ir::For{i, ir::make_int(0), ir::make_int(4), ir::make_int(1), {ia},
                                    ir::make_seq({ir::make_stmt(ir::Eval{ia})}), {}, ir::ForKind::range, {}});
  auto f = ir::make_function(ir::FunctionNode{"f", {ir::Param{x, ir::ParamDirection::In}}, {}, ir::make_seq({loop}),
                                              ir::FunctionType::Opaque, {}, {}, {}, {}});
  ir::Diagnostics ds = pass::verify(pass::Property::SSAForm, ir::make_program("P", {f}));
  REQUIRE(ds.size() == 2);
  CHECK(ds[0].message == "in function 'f': ForStmt iter_args count (1) != return_vars count (0)");
  CHECK(ds[1].message == "in function 'f': ForStmt with iter_args must have YieldStmt as last statement in body");
}

TEST_CASE("pipeline check: a missing SSAForm shows the verifier's finding and the pass that establishes it") {
  ir::Program p = parse(R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out_0: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        out_0 = pl.store(t, [0, 0], out_0)
        out_0 = pl.store(t, [0, 0], out_0)
        return out_0
)");
  pass::Pipeline flatten({*passes::find_pass("flatten_tile_nd_to_2d")});
  ir::Diagnostics ds = passes::check_pipeline(flatten, p, {});
  CHECK(passes::has_error(ds));
  std::string text = passes::render_check(ds, "t.pto", "");
  CHECK(text.find("t.pto: error: pass FlattenTileNdTo2D requires SSAForm, which the input does not have and no "
                  "earlier pass produces:") != std::string::npos);
  CHECK(text.find("t.pto:8:9: note: SSAForm: in function 'k': variable 'out_0' is assigned more than once") !=
        std::string::npos);
  CHECK(text.find("note: pass ConvertToSSA establishes SSAForm; run it first: "
                  "--passes=convert_to_ssa,flatten_tile_nd_to_2d") != std::string::npos);

  // Declared (--assume) or established first, the pipeline may run.
  CHECK_FALSE(passes::has_error(passes::check_pipeline(flatten, p, {pass::PropertySet{pass::Property::SSAForm}, {}})));
  pass::Pipeline fixed({*passes::find_pass("convert_to_ssa"), *passes::find_pass("flatten_tile_nd_to_2d")});
  CHECK(passes::check_pipeline(fixed, p, {}).empty());
  // The default pipeline starts with ConvertToSSA, as upstream's does.
  CHECK(passes::default_pipeline().front().info.factory == "convert_to_ssa");
  CHECK(passes::all_passes().front().info.factory == "convert_to_ssa");
}

TEST_CASE("pipeline check: FoldNoOpReshape on tiles without MemRefs is a note (FR-04 condition 2) unless required") {
  ir::Program p = parse(R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out_0: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 64])
        b: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(a, [16, 64])
        out_1 = pl.store(b, [0, 0], out_0)
        return out_1
)");
  pass::Pipeline fold({*passes::find_pass("fold_no_op_reshape")});
  ir::Diagnostics ds = passes::check_pipeline(fold, p, {});
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].severity == ir::Severity::note);
  CHECK(ds[0].message.find("will change nothing: the input has no HasMemRefs") != std::string::npos);
  pass::PassContext ctx;
  CHECK(fold.run(p, ctx, pass::VerifyLevel::basic) == p);  // and indeed it changes nothing

  ir::Diagnostics refused = passes::check_pipeline(fold, p, {{}, pass::PropertySet{pass::Property::HasMemRefs}});
  REQUIRE(passes::has_error(refused));
  CHECK(refused[0].message == "the input does not have HasMemRefs, which --require=HasMemRefs asks for:");
  REQUIRE(refused.size() >= 2);
  CHECK(refused[1].message == "in function 'k': tile 'a' has no MemRef");
  CHECK(refused[1].span.line == 6);
}

// Issue 35 (upstream: test_reserved_auto_name_delimiter_in_base_raises): a parameter of the
// user's named with `__` is refused where it is declared; generated-looking names are bases.
TEST_CASE("ConvertToSSA: names with the reserved delimiter '__' are refused, generated ones are not") {
  const std::string message = conversion_error(R"(
@pl.program
class P:
    @pl.function
    def f(self, bad__x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.add(bad__x, 1.0)
        return y
)");
  CHECK(message.find("reserved delimiter '__'") != std::string::npos);
  CHECK(message.find("'bad__x'") != std::string::npos);
  CHECK(message.starts_with("5:"));
  for (const char* name : {"x__ssa_v0", "acc__iter_v3", "t__tile", "y_tile__k_f_tmp_v3", "c__ssa_v0_mv"}) {
    CAPTURE(name);
    std::string src = std::string(R"(
@pl.program
class P:
    @pl.function
    def f(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        )") + name + " = pl.add(x, 1.0)\n        " + name + " = pl.add(" + name + ", 2.0)\n        return " + name + "\n";
    CHECK_NOTHROW(convert(parse(src)));
  }
}
