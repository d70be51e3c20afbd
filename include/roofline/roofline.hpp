#pragma once
// Everything in roofline that builds without CUDA, one include per public header.
//
// Layers (each includes only those above it):
//   core/      units, dtypes, GPU specs and the sourced catalog, workloads, ceilings, the roofline
//   models/    GEMM, grouped MoE GEMM, attention, collectives, power, the transformer serving step
//   trace/     measured events: kernels, power samples, benchmark runs, kernel-name rules
//   io/        readers and writers of outside formats (nlohmann/json, zlib)
//   analysis/  verdicts, serving-run analysis, calibration fits (Eigen)
//   report/    text tables, CSV, JSON, SVG and HTML (fmt)
// Users who want only the models include `roofline/models/...` and pull in no third-party header.
//
// Third-party headers: nlohmann/json, fmt and zlib (all on the default include path on Debian);
// simdjson and sqlite3 only when ROOFLINE_HAVE_SIMDJSON / ROOFLINE_HAVE_SQLITE are defined.
// The calibration fits (analysis/calibration.hpp, `roofline calibrate`) need Eigen, whose headers
// Debian keeps off the default path (/usr/include/eigen3): they are left out here unless
// ROOFLINE_WITH_CALIBRATION is defined; `roofline/calibration.hpp` is this header plus them.
// Reading and applying a calibration file (io/calibration.hpp) needs no Eigen and is always in.

#include "roofline/core/bound.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/compilation.hpp"
#include "roofline/core/ceilings.hpp"
#include "roofline/core/dtype.hpp"
#include "roofline/core/error.hpp"
#include "roofline/core/gpu_spec.hpp"
#include "roofline/core/network.hpp"
#include "roofline/core/roofline.hpp"
#include "roofline/core/units.hpp"
#include "roofline/core/version.hpp"
#include "roofline/core/workload.hpp"

#include "roofline/models/attention.hpp"
#include "roofline/models/calibration_overlay.hpp"
#include "roofline/models/capacity.hpp"
#include "roofline/models/collective.hpp"
#include "roofline/models/gemm.hpp"
#include "roofline/models/host_topology.hpp"
#include "roofline/models/kernel_time.hpp"
#include "roofline/models/kv_cache.hpp"
#include "roofline/models/linear_attention.hpp"
#include "roofline/models/memory.hpp"
#include "roofline/models/model_config.hpp"
#include "roofline/models/moe.hpp"
#include "roofline/models/parameters.hpp"
#include "roofline/models/power.hpp"
#include "roofline/models/serving_terms.hpp"
#include "roofline/models/transformer.hpp"

#include "roofline/trace/bench.hpp"
#include "roofline/trace/collective_sweep.hpp"
#include "roofline/trace/kernel_event.hpp"
#include "roofline/trace/kernel_profile.hpp"
#include "roofline/trace/kernel_rules.hpp"
#include "roofline/trace/power.hpp"
#include "roofline/trace/rank_summary.hpp"
#include "roofline/trace/read_stats.hpp"
#include "roofline/trace/summary.hpp"

#include "roofline/io/bench_json.hpp"
#include "roofline/io/calibration.hpp"
#include "roofline/io/csv.hpp"
#include "roofline/io/gpu_json.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/io/input.hpp"
#include "roofline/io/kernel_rules_json.hpp"
#include "roofline/io/kineto.hpp"
#include "roofline/io/measurements.hpp"
#include "roofline/io/nccl_tests.hpp"
#include "roofline/io/nvidia_smi_topo.hpp"
#include "roofline/io/serving_efficiency_json.hpp"
#include "roofline/io/serving_runs_csv.hpp"
#include "roofline/io/ncu_csv.hpp"
#include "roofline/io/nsys_csv.hpp"
#include "roofline/io/nsys_sqlite.hpp"
#include "roofline/io/nvidia_smi.hpp"
#include "roofline/io/quant_option.hpp"
#include "roofline/io/rank_summary.hpp"
#include "roofline/io/trace_file.hpp"

#include "roofline/analysis/achievable.hpp"
#ifdef ROOFLINE_WITH_CALIBRATION
#include "roofline/analysis/calibration.hpp"
#endif
#include "roofline/analysis/cluster.hpp"
#include "roofline/analysis/collective_match.hpp"
#include "roofline/analysis/gpu_match.hpp"
#include "roofline/analysis/idle_time.hpp"
#include "roofline/analysis/intervals.hpp"
#include "roofline/analysis/op_coverage.hpp"
#include "roofline/analysis/op_workload.hpp"
#include "roofline/analysis/ops/arguments.hpp"
#include "roofline/analysis/ops/dense.hpp"
#include "roofline/analysis/ops/engine.hpp"
#include "roofline/analysis/ops/inductor.hpp"
#include "roofline/analysis/ops/memory.hpp"
#include "roofline/analysis/pareto.hpp"
#include "roofline/analysis/estimate.hpp"
#include "roofline/analysis/plan.hpp"
#include "roofline/analysis/plan_disaggregated.hpp"
#include "roofline/analysis/serving_fit.hpp"
#include "roofline/analysis/power_alignment.hpp"
#include "roofline/analysis/power_cap_cost.hpp"
#include "roofline/analysis/power_summary.hpp"
#include "roofline/analysis/power_window.hpp"
#include "roofline/analysis/serving.hpp"
#include "roofline/analysis/steady_state.hpp"
#include "roofline/analysis/trace/classify.hpp"
#include "roofline/analysis/trace/gpu_context.hpp"
#include "roofline/analysis/trace/power.hpp"
#include "roofline/analysis/trace/recover_work.hpp"
#include "roofline/analysis/trace/result.hpp"
#include "roofline/analysis/trace/rows.hpp"
#include "roofline/analysis/trace/steps.hpp"
#include "roofline/analysis/trace/window_verdict.hpp"
#include "roofline/analysis/trace_analysis.hpp"
#include "roofline/analysis/verdict.hpp"

#include "roofline/report/cluster_report.hpp"
#include "roofline/report/csv.hpp"
#include "roofline/report/format.hpp"
#include "roofline/report/gpu_table.hpp"
#include "roofline/report/html.hpp"
#include "roofline/report/json.hpp"
#include "roofline/report/json_writer.hpp"
#include "roofline/report/markup.hpp"
#include "roofline/report/svg.hpp"
#include "roofline/report/svg_pareto.hpp"
#include "roofline/report/svg_roofline.hpp"
#include "roofline/report/table.hpp"
#include "roofline/report/trace_report.hpp"
