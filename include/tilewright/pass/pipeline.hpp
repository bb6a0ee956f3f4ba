#pragma once
// Pipelines: an ordered list of passes whose property requirements are checked — at
// compile time for `make_pipeline(p1, p2, …)`, at run time for pipelines built by name.
#include <chrono>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tilewright/pass/pass.hpp"
#include "tilewright/pass/verify.hpp"

namespace tilewright::pass {

enum class VerifyLevel : std::uint8_t { none, basic, roundtrip };

// A pass behind a uniform signature, for pipelines assembled at run time (the CLI).
struct AnyPass {
  PassInfo info;
  std::function<ir::Program(const ir::Program&, PassContext&)> run;
};

template <Pass P>
AnyPass erase(P pass) {
  return AnyPass{P::info, [pass = std::move(pass)](const ir::Program& p, PassContext& ctx) { return pass(p, ctx); }};
}

// Wall time of one pass, and of the verification of the properties it produced.
struct PassTiming {
  std::string_view pass;
  double milliseconds;
  double verify_milliseconds;
};

// Hooks around every pass: IR dumps, timing, extra checks (the text round trip lives in
// text/roundtrip.hpp so that passes never depend on the parser).
struct Instruments {
  std::function<void(const PassInfo&, const ir::Program&)> before;
  std::function<void(const PassInfo&, const ir::Program&)> after;
};

class Pipeline {
 public:
  Pipeline() = default;
  explicit Pipeline(std::vector<AnyPass> passes, PropertySet input = {}) : passes_(std::move(passes)), input_(input) {}

  void add(AnyPass p) { passes_.push_back(std::move(p)); }
  [[nodiscard]] const std::vector<AnyPass>& passes() const noexcept { return passes_; }

  // The first pass whose required properties neither the input nor an earlier pass
  // provides, as a user-facing sentence; nullopt when the order is sound.
  [[nodiscard]] std::optional<std::string> check_order() const {
    PropertySet have = input_;
    for (const auto& p : passes_) {
      if (!have.contains(p.info.required)) {
        return "pass " + std::string(p.info.name) + " requires " +
               (p.info.required - have).to_string() +
               ", which neither the input declares nor an earlier pass produces; "
               "run a pass that establishes it first, or declare it in the Pipeline's input properties";
      }
      have = (have - p.info.invalidated) | p.info.produced;
    }
    return std::nullopt;
  }

  ir::Program run(ir::Program program, PassContext& ctx, VerifyLevel level = VerifyLevel::basic,
                  const Instruments& instruments = {}, std::vector<PassTiming>* timings = nullptr) const {
    for (const auto& p : passes_) {
      if (instruments.before) instruments.before(p.info, program);
      using ms = std::chrono::duration<double, std::milli>;
      auto start = std::chrono::steady_clock::now();
      ir::Program next = p.run(program, ctx);
      auto stop = std::chrono::steady_clock::now();
      if (level != VerifyLevel::none) {
        ir::Diagnostics problems = verify(p.info.produced, next);
        if (!problems.empty()) {
          ir::Diagnostic d = problems.front();
          d.message = "after " + std::string(p.info.name) + ": " + d.message;
          throw ir::Error(std::move(d));
        }
      }
      if (timings)
        timings->push_back({p.info.name, ms(stop - start).count(), ms(std::chrono::steady_clock::now() - stop).count()});
      if (instruments.after) instruments.after(p.info, next);
      program = std::move(next);
    }
    return program;
  }

 private:
  std::vector<AnyPass> passes_;
  PropertySet input_;
};

// ---- compile-time pipelines ---------------------------------------------------------------

template <Property... Ps>
struct declared_input {
  static constexpr PropertySet set{Ps...};
};

namespace detail {
template <class... P>
consteval bool properties_flow(PropertySet have) {
  bool ok = true;
  ((ok = ok && have.contains(P::info.required), have = (have - P::info.invalidated) | P::info.produced), ...);
  return ok;
}
}  // namespace detail

template <Pass... P>
class StaticPipeline {
 public:
  explicit StaticPipeline(P... passes) : passes_(std::move(passes)...) {}

  ir::Program operator()(ir::Program program, PassContext& ctx) const {
    std::apply([&](const auto&... p) { ((program = p(program, ctx)), ...); }, passes_);
    return program;
  }
  [[nodiscard]] Pipeline erased(PropertySet input = {}) const {
    return std::apply([&](const auto&... p) { return Pipeline({erase(p)...}, input); }, passes_);
  }

 private:
  std::tuple<P...> passes_;
};

// make_pipeline(declared_input<…>{}, p1, p2, …): refuses to compile when a pass requires a
// property that neither the declared input nor an earlier pass provides.
template <Property... In, Pass... P>
auto make_pipeline(declared_input<In...>, P... passes) {
  static_assert(detail::properties_flow<P...>(declared_input<In...>::set),
                "make_pipeline: a pass requires an IR property that neither the declared input "
                "nor an earlier pass produces; reorder the passes or declare the property with "
                "declared_input<...>");
  return StaticPipeline<P...>(std::move(passes)...);
}
template <Pass... P>
auto make_pipeline(P... passes) {
  return make_pipeline(declared_input<>{}, std::move(passes)...);
}

}  // namespace tilewright::pass
