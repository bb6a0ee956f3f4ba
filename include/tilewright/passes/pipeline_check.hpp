#pragma once
// Checking a pipeline against the program it will run on, with reports a user can act on.
//
// The input is taken to have every property whose verifier accepts it, plus the ones the
// user declares (tilewright-opt --assume=…). Each pass must then find what it requires
// there or from an earlier pass. When it does not, the report says which pass, which
// property, shows the verifier's own located findings (which variable, where), and names the
// pass that establishes the property (`--passes=convert_to_ssa,…`), or says that none here
// does. A missing property that only makes a pass idle (PassInfo::inert_without) is a note,
// not a refusal — unless the user asked for it to be verified (tilewright-opt --require=…).
#include <string>
#include <string_view>
#include <vector>

#include "tilewright/pass/pipeline.hpp"
#include "tilewright/pass/verify.hpp"
#include "tilewright/passes/registry.hpp"

namespace tilewright::passes {

struct PipelineCheckOptions {
  pass::PropertySet assumed;   // taken as given, not verified
  pass::PropertySet required;  // verified on the input; their absence refuses the run
  bool check_order = true;     // false with --verify=none: no property check at all
};

namespace check_detail {

// Upstream's pass that establishes a property tilewright has no pass for.
inline std::string_view upstream_producer(pass::Property p) noexcept {
  switch (p) {
    case pass::Property::SplitIncoreOrch: return "OutlineIncoreScopes";
    case pass::Property::IncoreTileOps: return "ConvertTensorToTileOps";
    case pass::Property::TileMemoryInferred: return "InferTileMemorySpace";
    case pass::Property::NormalizedStmtStructure: return "NormalizeStmtStructure";
    case pass::Property::HasMemRefs: return "InitMemRef";
    default: return {};
  }
}

inline const pass::AnyPass* producer_of(pass::Property p, const std::vector<pass::AnyPass>& library) {
  for (const auto& candidate : library)
    if (candidate.info.produced.contains(p) && !candidate.info.required.contains(p)) return &candidate;
  return nullptr;
}

// The verifier's findings on the input, as notes under a report (at most `limit` of them).
inline void add_findings(ir::Diagnostics& out, const ir::Diagnostics& findings, std::size_t limit = 5) {
  for (std::size_t i = 0; i < findings.size() && i < limit; ++i) {
    ir::Diagnostic d = findings[i];
    d.severity = ir::Severity::note;
    d.kind = ir::ErrorKind::user;
    out.push_back(std::move(d));
  }
  if (findings.size() > limit)
    out.push_back(ir::Diagnostic{ir::Severity::note, ir::ErrorKind::user, {},
                                 "… and " + std::to_string(findings.size() - limit) + " more", {}, {}});
}

inline ir::Diagnostic note(std::string message) {
  return ir::Diagnostic{ir::Severity::note, ir::ErrorKind::user, {}, std::move(message), {}, {}};
}
inline ir::Diagnostic error(std::string message) {
  return ir::Diagnostic{ir::Severity::error, ir::ErrorKind::user, {}, std::move(message), {}, {}};
}

inline std::string pass_list(const std::vector<pass::AnyPass>& passes, std::size_t insert_at,
                             const pass::AnyPass* inserted) {
  std::string out;
  for (std::size_t i = 0; i <= passes.size(); ++i) {
    if (i == insert_at && inserted) out += (out.empty() ? "" : ",") + std::string(inserted->info.factory);
    if (i < passes.size()) out += (out.empty() ? "" : ",") + std::string(passes[i].info.factory);
  }
  return out;
}

}  // namespace check_detail

inline bool has_error(const ir::Diagnostics& ds) noexcept {
  for (const auto& d : ds)
    if (d.severity == ir::Severity::error) return true;
  return false;
}

// Reports (errors first, each followed by its notes) why `pipeline` should not run on
// `input`, and notes about passes that will find nothing to do. No error: it may run.
inline ir::Diagnostics check_pipeline(const pass::Pipeline& pipeline, const ir::Program& input,
                                      const PipelineCheckOptions& options) {
  using namespace check_detail;
  ir::Diagnostics out;
  // Each verifier runs at most once on the input.
  std::vector<ir::Diagnostics> findings(pass::property_count);
  pass::PropertySet verified, have = options.assumed;
  for (std::size_t i = 0; i < pass::property_count; ++i) {
    auto p = static_cast<pass::Property>(i);
    if (options.assumed.contains(p)) continue;
    findings[i] = pass::verify(p, input);
    if (findings[i].empty()) verified = verified | pass::PropertySet{p};
  }
  have = have | verified;

  options.required.for_each([&](pass::Property p) {
    if (have.contains(p)) return;
    out.push_back(error("the input does not have " + std::string(pass::name_of(p)) + ", which --require=" +
                        std::string(pass::name_of(p)) + " asks for:"));
    add_findings(out, findings[static_cast<std::size_t>(p)]);
  });
  if (!options.check_order || has_error(out)) return out;

  const std::vector<pass::AnyPass>& passes = pipeline.passes();
  const std::vector<pass::AnyPass> library = all_passes();
  for (std::size_t k = 0; k < passes.size(); ++k) {
    const pass::PassInfo& info = passes[k].info;
    pass::PropertySet missing = info.required - have;
    pass::PropertySet idle = (missing - options.required) - (missing - info.inert_without);
    missing = missing - idle;
    idle.for_each([&](pass::Property p) {
      out.push_back(note("pass " + std::string(info.name) + " will change nothing: the input has no " +
                         std::string(pass::name_of(p)) + " (--require=" + std::string(pass::name_of(p)) +
                         " refuses such input instead)"));
    });
    missing.for_each([&](pass::Property p) {
      const std::string prop(pass::name_of(p));
      const bool invalidated = (verified | options.assumed).contains(p);
      out.push_back(error("pass " + std::string(info.name) + " requires " + prop + ", which " +
                          (invalidated ? "an earlier pass invalidates"
                                       : "the input does not have and no earlier pass produces") +
                          (invalidated || findings[static_cast<std::size_t>(p)].empty() ? "" : ":")));
      if (!invalidated) add_findings(out, findings[static_cast<std::size_t>(p)]);
      if (const pass::AnyPass* fix = producer_of(p, library))
        out.push_back(note("pass " + std::string(fix->info.name) + " establishes " + prop + "; run it first: --passes=" +
                           pass_list(passes, k, fix)));
      else if (auto upstream = upstream_producer(p); !upstream.empty())
        out.push_back(note("no tilewright pass establishes " + prop + " (upstream's " + std::string(upstream) +
                           " does); run " + std::string(info.name) + " on a program that has it, or, if the "
                           "verifier is wrong about this input, declare it with --assume=" + prop));
    });
    have = (have - info.invalidated) | info.produced;
  }
  return out;
}

// What tilewright-opt prints for a check: each diagnostic rendered, those without a source
// location headed by the file name.
inline std::string render_check(const ir::Diagnostics& ds, std::string_view file_name, std::string_view source) {
  std::string out;
  for (const auto& d : ds) {
    if (!d.span.known() && d.severity != ir::Severity::note) out += std::string(file_name) + ": ";
    out += ir::render(d, d.span.known() && d.span.file_name() == file_name ? source : std::string_view());
  }
  return out;
}

}  // namespace tilewright::passes
