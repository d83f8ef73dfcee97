// The PyTorch schedule CSV reader (see export.h): both forms of PyTorch's
// _dump_csv, read as a schedule on a problem. It checks the bytes first
// (size, UTF-8, byte-order marks, NUL bytes), then each cell as it comes
// (so a header row or a stray word is named where it stands), then the rows
// against the problem, then the stages and, in a compute_comms file, the
// communication; every message points at a cell: its line and column and the
// rank (row) and step (cell) it stands for, then says what was expected and
// what was found, in PyTorch's own words (B is a full backward there, I the
// input gradient), as the JSON readers do.
//
// Memory: the text is not copied; a non-empty cell becomes one 28-byte
// record (each takes at least 3 bytes and a separator in the text: at most
// 9 bytes of memory per input byte), an empty cell costs nothing but a count.
#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>

#include "core/pipeline/export.h"
#include "core/utf8.h"

namespace shardlab::pipeline {
namespace {

using T = TorchType;

constexpr int64_t kMaxStage = 65535;

struct CellAct {
  TorchAction a;
  uint32_t byte = 0;  // the cell's first byte (after the byte-order mark's 3, if any)
  uint32_t step = 0;
};

// A cell's text for messages: as written, on one line (a quoted cell can
// hold line breaks), shortened beyond 40 bytes.
std::string quoted(std::string_view cell) { return utf8::quote(cell); }

std::string_view trim(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// Reads up to 9 digits at s[*i]; false when there are none or too many.
bool read_number(std::string_view s, size_t* i, int64_t* value, bool* any) {
  size_t j = *i;
  while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
  *any = j > *i;
  if (j - *i > 9) return false;
  int64_t v = 0;
  for (size_t k = *i; k < j; ++k) v = v * 10 + (s[k] - '0');
  *value = v;
  *i = j;
  return true;
}

// "{stage}{type}{mb}" with PyTorch's types; the whole text must match (PyTorch's
// regex would ignore trailing text; a reader should not).
enum class Parse { kOk, kMalformed, kOldVocabulary, kNeedsMicrobatch, kNoMicrobatch };
Parse parse_single(std::string_view s, TorchAction* a) {
  size_t i = 0;
  int64_t stage = 0, mb = 0;
  bool any = false;
  if (!read_number(s, &i, &stage, &any) || !any) return Parse::kMalformed;
  static const std::pair<const char*, T> kTypes[] = {{"REDUCE_GRAD", T::kReduceGrad},
                                                     {"UNSHARD", T::kUnshard},
                                                     {"RESHARD", T::kReshard},
                                                     {"SEND_F", T::kSendF},
                                                     {"RECV_F", T::kRecvF},
                                                     {"SEND_B", T::kSendB},
                                                     {"RECV_B", T::kRecvB},
                                                     {"F", T::kF},
                                                     {"I", T::kI},
                                                     {"W", T::kW},
                                                     {"B", T::kB}};
  const std::string_view rest = s.substr(i);
  bool found = false;
  for (const auto& [text, type] : kTypes) {
    const std::string_view name(text);
    if (rest.substr(0, name.size()) == name) {
      a->type = type;
      i += name.size();
      found = true;
      break;
    }
  }
  if (!found) return Parse::kMalformed;
  if (a->type == T::kB && i < s.size() && s[i] == 'W') return Parse::kOldVocabulary;
  if (!read_number(s, &i, &mb, &any) || i != s.size()) return Parse::kMalformed;
  a->stage = static_cast<int32_t>(std::min<int64_t>(stage, INT32_MAX));
  a->mb = any ? static_cast<int32_t>(mb) : -1;
  const bool stage_only =
      a->type == T::kUnshard || a->type == T::kReshard || a->type == T::kReduceGrad;
  if (stage_only && any) return Parse::kNoMicrobatch;
  if (!stage_only && !any) return Parse::kNeedsMicrobatch;
  return Parse::kOk;
}

// What an op is, in PyTorch's words.
std::string op_words(const Expansion& e, int32_t op) {
  const Op& o = e.ops[op];
  const char* what = o.kind == OpKind::kF   ? "the forward (F)"
                     : o.kind == OpKind::kB ? "the input gradient (I)"
                                            : "the weight gradient (W)";
  return std::string(what) + " of stage " + std::to_string(e.units[o.unit].stage) +
         ", micro-batch " + std::to_string(o.microbatch);
}

class CsvReader {
 public:
  CsvReader(const Problem& problem, const std::string& source, std::string_view text,
            std::optional<CsvFormat> format)
      : problem_(problem), source_(source), text_(text), format_(format) {}

  Result<ScheduleResult> read();

 private:
  // Line and column (1-based, in bytes) of a byte of text_.
  std::pair<int64_t, int64_t> where(size_t byte) const {
    int64_t line = 1;
    size_t line_start = bom_;
    for (size_t i = bom_; i < byte && i < text_.size(); ++i) {
      if (text_[i] == '\n' ||
          (text_[i] == '\r' && (i + 1 >= text_.size() || text_[i + 1] != '\n'))) {
        ++line;
        line_start = i + 1;
      }
    }
    return {line, static_cast<int64_t>(byte - line_start) + 1};
  }
  std::string at(size_t byte) const {
    const auto [line, column] = where(byte);
    return source_ + ":" + std::to_string(line) + ":" + std::to_string(column);
  }
  // with_byte: "(byte N)" after the position, for faults of the bytes.
  Status fail(size_t byte, const std::string& message, bool with_byte = false) const {
    return Status(
        StatusCode::kInvalidInput,
        at(byte) + (with_byte ? " (byte " + std::to_string(byte) + ")" : "") + ": " + message);
  }
  Status fail_cell(size_t byte, int64_t rank, int64_t step, const std::string& message) const {
    return Status(StatusCode::kInvalidInput, at(byte) + " (rank " + std::to_string(rank) +
                                                 ", step " + std::to_string(step) +
                                                 "): " + message);
  }
  Status fail_cell(const CellAct& c, int64_t rank, const std::string& message) const {
    return fail_cell(c.byte, rank, c.step, message);
  }
  // The cell's text as written.
  std::string_view cell_text(const CellAct& c) const {
    size_t end = c.byte;
    if (end < text_.size() && text_[end] == '"') {
      ++end;
      while (end < text_.size() &&
             !(text_[end] == '"' && (end + 1 >= text_.size() || text_[end + 1] != '"'))) {
        end += text_[end] == '"' ? 2 : 1;
      }
      ++end;
    }
    while (end < text_.size() && text_[end] != ',' && text_[end] != '\n' && text_[end] != '\r') {
      ++end;
    }
    return trim(text_.substr(c.byte, std::min(end, text_.size()) - c.byte));
  }

  Status check_bytes();
  Status split();
  Status parse_cell(std::string_view cell, size_t byte, size_t rank, uint32_t step);
  Status check_rows();
  Status map_stages();
  Status check_comms();
  Result<ScheduleResult> build();

  const Problem& problem_;
  const std::string& source_;
  std::string_view text_;
  std::optional<CsvFormat> format_;
  size_t bom_ = 0;
  size_t first_line_end_ = 0;               // where line 1 ends
  std::deque<std::string> unquoted_;        // texts of quoted cells
  std::vector<std::vector<CellAct>> rows_;  // non-empty cells per row
  std::vector<size_t> row_start_;           // byte where each row starts
  std::vector<uint32_t> row_steps_;         // cells per row (empty ones too)
  size_t cells_ = 0;                        // non-empty cells
  bool comms_ = false;                      // a communication cell was seen
  std::optional<std::pair<size_t, CellAct>> first_comm_, first_empty_;  // (rank, cell)
  std::vector<int32_t> stage_rank_;                                     // stage -> rank
  std::vector<std::pair<size_t, size_t>> stage_cell_;  // stage -> (rank, index) naming it first
  int64_t stages_ = 0;
};

Status CsvReader::check_bytes() {
  if (text_.size() > kMaxCsvBytes) {
    return Status(StatusCode::kInvalidInput,
                  source_ + ": expected a CSV of at most " + std::to_string(kMaxCsvBytes) +
                      " bytes (" + std::to_string(kMaxCsvBytes >> 20) + " MiB), found " +
                      std::to_string(text_.size()) + " bytes");
  }
  const std::string utf8_expected =
      "expected UTF-8 text (PyTorch writes UTF-8; save the file as UTF-8)";
  const std::string foreign = utf8::foreign_encoding(text_.substr(0, 64));
  if (!foreign.empty()) {
    return Status(StatusCode::kInvalidInput,
                  source_ + ":1:1 (byte 0): " + utf8_expected + ", found " + foreign);
  }
  if (utf8::has_bom(text_)) bom_ = 3;
  for (size_t i = bom_; i < text_.size();) {
    std::string why;
    const size_t n = text_[i] == '\0' ? 0 : utf8::char_length(text_, i, &why);
    if (n == 0) {
      if (text_[i] == '\0') {
        why = "a NUL byte (0x00): the file is binary or UTF-16 without a byte-order mark";
      }
      return fail(i, utf8_expected + ", found " + why, true);
    }
    i += n;
  }
  return Status::ok();
}

Status CsvReader::parse_cell(std::string_view cell, size_t byte, size_t rank, uint32_t step) {
  CellAct c;
  c.byte = static_cast<uint32_t>(byte);
  c.step = step;
  if (cell.empty()) {
    if (!first_empty_) first_empty_ = {{rank, c}};
    return Status::ok();
  }
  if (++cells_ > kMaxCsvBytes / 4) {
    return fail_cell(byte, rank, step,
                     "expected at most " + std::to_string(kMaxCsvBytes / 4) + " actions (what a " +
                         std::to_string(kMaxCsvBytes >> 20) + " MiB CSV can hold), found more");
  }
  const bool line_one = byte < first_line_end_;
  auto not_action = [&](const std::string& expected_what) {
    std::string message = expected_what + ", found " + quoted(cell);
    const char first = cell[0];
    if (line_one && !(first >= '0' && first <= '9') && first != '(') {
      message += " (PyTorch's CSV has no header row: one row per rank, one cell per step)";
    }
    return fail_cell(byte, rank, step, message);
  };
  const std::string expected =
      "expected an action such as 2F0, 1I3, 0W3, 1B2 (B: a full backward) or "
      "(0F4;3B1)OVERLAP_F_B";
  if (cell[0] == '(') {
    const size_t close = cell.find(')');
    const size_t semi = cell.find(';');
    if (close == std::string_view::npos || cell.substr(close + 1) != "OVERLAP_F_B") {
      return not_action(expected);
    }
    TorchAction f, b;
    if (semi == std::string_view::npos || semi > close ||
        parse_single(trim(cell.substr(1, semi - 1)), &f) != Parse::kOk ||
        parse_single(trim(cell.substr(semi + 1, close - semi - 1)), &b) != Parse::kOk ||
        f.type != T::kF || b.type != T::kB) {
      return not_action(
          "expected an overlapped pair of a forward and a full backward, e.g. "
          "(0F4;3B1)OVERLAP_F_B");
    }
    for (const TorchAction& sub : {f, b}) {
      if (sub.stage > kMaxStage) {
        return not_action("expected stages from 0 to " + std::to_string(kMaxStage));
      }
    }
    c.a = TorchAction::overlap(f.stage, f.mb, b.stage, b.mb);
  } else {
    switch (parse_single(cell, &c.a)) {
      case Parse::kOk:
        break;
      case Parse::kMalformed:
        return not_action(expected);
      case Parse::kOldVocabulary:
        return not_action(
            "expected an action in PyTorch's vocabulary since 2.5 (F, I = input gradient, W, B "
            "= full backward; older releases wrote BW for a full backward and B for the input "
            "gradient)");
      case Parse::kNeedsMicrobatch:
        return not_action("expected " + std::string(torch_type_text(c.a.type)) +
                          " with its micro-batch, e.g. " + std::to_string(c.a.stage) +
                          torch_type_text(c.a.type) + "0");
      case Parse::kNoMicrobatch:
        return not_action("expected " + std::string(torch_type_text(c.a.type)) +
                          " with a stage only, e.g. " + std::to_string(c.a.stage) +
                          torch_type_text(c.a.type));
    }
    if (c.a.stage > kMaxStage) {
      return not_action("expected stages from 0 to " + std::to_string(kMaxStage));
    }
    if (!is_torch_compute(c.a.type)) {
      comms_ = true;
      if (!first_comm_) first_comm_ = {{rank, c}};
    }
  }
  rows_[rank].push_back(c);
  return Status::ok();
}

// Rows of cells as Python's csv reader splits them (RFC 4180 quoting; "\r\n",
// "\n" or "\r" ends a row), parsing each cell as it comes.
Status CsvReader::split() {
  size_t i = bom_;
  const size_t n = text_.size();
  first_line_end_ = text_.find_first_of("\r\n", bom_);
  if (first_line_end_ == std::string_view::npos) first_line_end_ = n;
  const size_t p = static_cast<size_t>(problem_.devices);
  size_t rank = 0;
  for (; i < n; ++rank) {
    // Beyond the problem's ranks only blank lines may follow (nothing is
    // stored for them, so a file of line breaks costs no memory).
    if (rank >= p) {
      if (text_[i] != '\n' && text_[i] != '\r') {
        return Status(StatusCode::kInvalidInput,
                      at(i) + " (rank " + std::to_string(rank) + "): expected one row per rank, " +
                          std::to_string(p) + " for the problem's " + std::to_string(p) +
                          " devices (ranks 0.." + std::to_string(p - 1) +
                          "), found a row for rank " + std::to_string(rank));
      }
      if (text_[i] == '\r') ++i;
      if (i < n && text_[i] == '\n') ++i;
      continue;
    }
    rows_.emplace_back();
    row_start_.push_back(i);
    uint32_t step = 0;
    // A blank line is a row without cells (Python's csv reader yields []).
    const bool blank = text_[i] == '\n' || text_[i] == '\r';
    while (!blank) {
      const size_t cell_start = i;
      std::string_view cell;
      if (i < n && text_[i] == '"') {
        std::string value;
        ++i;
        while (i < n) {
          if (text_[i] == '"' && i + 1 < n && text_[i + 1] == '"') {
            value += '"';
            i += 2;
          } else if (text_[i] == '"') {
            ++i;
            break;
          } else {
            value += text_[i++];
          }
        }
        const size_t rest = i;
        while (i < n && text_[i] != ',' && text_[i] != '\n' && text_[i] != '\r') ++i;
        value.append(text_.substr(rest, i - rest));
        unquoted_.push_back(std::move(value));
        cell = trim(unquoted_.back());
      } else {
        while (i < n && text_[i] != ',' && text_[i] != '\n' && text_[i] != '\r') ++i;
        cell = trim(text_.substr(cell_start, i - cell_start));
      }
      Status parsed = parse_cell(cell, cell_start, rank, step);
      if (!parsed.is_ok()) return parsed;
      ++step;
      if (i < n && text_[i] == ',') {
        ++i;
        continue;
      }
      break;
    }
    row_steps_.push_back(step);
    if (i < n && text_[i] == '\r') ++i;
    if (i < n && text_[i] == '\n') ++i;
  }
  // A blank line among the problem's ranks is an idle rank, as Python's csv
  // writer (and pytorch_csv) writes one; blank lines beyond them were skipped.
  if (first_empty_ && first_empty_->first >= rows_.size()) first_empty_.reset();
  return Status::ok();
}

Status CsvReader::check_rows() {
  const size_t p = static_cast<size_t>(problem_.devices);
  if (rows_.size() < p) {
    return Status(StatusCode::kInvalidInput,
                  at(text_.size()) + ": expected one row per rank, " + std::to_string(p) +
                      " for the problem's " + std::to_string(p) + " devices, found " +
                      std::to_string(rows_.size()) + (rows_.size() == 1 ? " row" : " rows") +
                      " (rank " + std::to_string(rows_.size()) + "'s row is missing)");
  }
  const CsvFormat format = format_  ? *format_
                           : comms_ ? CsvFormat::kComputeComms
                                    : CsvFormat::kComputeOnly;
  if (format == CsvFormat::kComputeOnly && first_comm_) {
    const auto& [rank, c] = *first_comm_;
    return fail_cell(c, rank,
                     "expected a compute_only cell (F, I, W, B or OVERLAP_F_B), found the "
                     "communication action " +
                         quoted(cell_text(c)) +
                         " (this is the compute_comms form; PyTorch refuses it as compute_only "
                         "too)");
  }
  if (format == CsvFormat::kComputeComms && first_empty_) {
    const auto& [rank, c] = *first_empty_;
    return fail_cell(c, rank,
                     "expected an action in every cell of a compute_comms CSV, found an empty "
                     "cell (once lowered, PyTorch's schedule has no idle steps; its _load_csv "
                     "refuses an empty action there)");
  }
  comms_ = format == CsvFormat::kComputeComms;
  return Status::ok();
}

// Stage -> rank from every stage a computation names; every stage on one
// rank, stages 0..S-1 all present.
Status CsvReader::map_stages() {
  int64_t max_stage = -1;
  size_t max_rank = 0, max_index = 0;
  for (size_t r = 0; r < rows_.size(); ++r) {
    for (size_t k = 0; k < rows_[r].size(); ++k) {
      const CellAct& c = rows_[r][k];
      if (!is_torch_compute(c.a.type)) continue;
      for (int32_t stage : {c.a.type == T::kOverlap ? c.a.f_stage : c.a.stage,
                            c.a.type == T::kOverlap ? c.a.b_stage : c.a.stage}) {
        if (stage >= static_cast<int64_t>(stage_rank_.size())) {
          stage_rank_.resize(stage + 1, -1);
          stage_cell_.resize(stage + 1, {0, 0});
        }
        if (stage_rank_[stage] < 0) {
          stage_rank_[stage] = static_cast<int32_t>(r);
          stage_cell_[stage] = {r, k};
        } else if (stage_rank_[stage] != static_cast<int32_t>(r)) {
          const CellAct& first = rows_[stage_cell_[stage].first][stage_cell_[stage].second];
          const auto [line, column] = where(first.byte);
          return fail_cell(c, r,
                           "expected stage " + std::to_string(stage) + " on rank " +
                               std::to_string(stage_rank_[stage]) + ", which runs it in " +
                               quoted(cell_text(first)) + " at line " + std::to_string(line) +
                               ", column " + std::to_string(column) +
                               " (PyTorch puts each stage on one rank), found " +
                               quoted(cell_text(c)) + " on rank " + std::to_string(r));
        }
        if (stage > max_stage) {
          max_stage = stage;
          max_rank = r;
          max_index = k;
        }
      }
    }
  }
  if (max_stage < 0) {
    return fail(bom_, "expected a computation (an F, I, W, B or OVERLAP_F_B cell), found none");
  }
  stages_ = max_stage + 1;
  const CellAct& top = rows_[max_rank][max_index];
  if (!problem_.uniform && stages_ > static_cast<int64_t>(problem_.stages.size())) {
    return fail_cell(top, max_rank,
                     "expected stages 0.." + std::to_string(problem_.stages.size() - 1) +
                         " (the problem has " + std::to_string(problem_.stages.size()) +
                         " stages), found " + quoted(cell_text(top)));
  }
  for (int64_t s = 0; s < stages_; ++s) {
    if (stage_rank_[s] >= 0) continue;
    return fail_cell(top, max_rank,
                     "expected a cell running each of stages 0.." + std::to_string(max_stage) +
                         " (the highest this CSV names), found " + quoted(cell_text(top)) +
                         " but no cell running stage " + std::to_string(s));
  }
  if (!problem_.uniform && stages_ < static_cast<int64_t>(problem_.stages.size())) {
    return fail(text_.size(), "expected cells running each of the problem's " +
                                  std::to_string(problem_.stages.size()) +
                                  " stages, found none running stage " + std::to_string(stages_));
  }
  return Status::ok();
}

// compute_comms: every communication cell names a stage of its own rank (the
// sender's for SEND, the receiver's for RECV), a receive has its send on the
// peer's row, and a computation that needs a tensor from another rank comes
// after its receive (PyTorch's runtime stops with "Computing ... before
// receiving input" otherwise).
Status CsvReader::check_comms() {
  if (!comms_) return Status::ok();
  const int32_t m = problem_.microbatches;
  auto key = [](T type, int64_t stage, int64_t mb) {
    return (static_cast<int64_t>(type) << 48) | (stage << 24) | mb;
  };
  std::map<int64_t, std::pair<size_t, size_t>> sends;  // SEND_* (stage, mb) -> its cell
  for (size_t r = 0; r < rows_.size(); ++r) {
    for (size_t k = 0; k < rows_[r].size(); ++k) {
      const CellAct& c = rows_[r][k];
      if (is_torch_compute(c.a.type)) continue;
      const std::string cell = quoted(cell_text(c));
      if (c.a.stage >= stages_ || stage_rank_[c.a.stage] != static_cast<int32_t>(r)) {
        return fail_cell(
            c, r,
            "expected a " + std::string(torch_type_text(c.a.type)) +
                " on the row of the rank that runs its stage, found " + cell + " on rank " +
                std::to_string(r) + "'s row (stage " + std::to_string(c.a.stage) +
                (c.a.stage >= stages_
                     ? " has no computation in this CSV)"
                     : " runs on rank " + std::to_string(stage_rank_[c.a.stage]) + ")"));
      }
      if (c.a.mb >= m) {
        return fail_cell(c, r,
                         "expected micro-batches 0.." + std::to_string(m - 1) +
                             " (the problem has " + std::to_string(m) + "), found " + cell);
      }
      if (c.a.type == T::kSendF || c.a.type == T::kSendB)
        sends[key(c.a.type, c.a.stage, c.a.mb)] = {r, k};
    }
  }
  for (size_t r = 0; r < rows_.size(); ++r) {
    std::map<int64_t, bool> received;
    for (size_t k = 0; k < rows_[r].size(); ++k) {
      const CellAct& c = rows_[r][k];
      if (c.a.type == T::kRecvF || c.a.type == T::kRecvB) {
        const bool forward = c.a.type == T::kRecvF;
        const int64_t from = forward ? c.a.stage - 1 : c.a.stage + 1;
        const T send = forward ? T::kSendF : T::kSendB;
        if (from < 0 || from >= stages_ || !sends.count(key(send, from, c.a.mb))) {
          const std::string wanted =
              std::to_string(from) + torch_type_text(send) + std::to_string(c.a.mb);
          return fail_cell(c, r,
                           "expected a \"" + wanted + "\" cell" +
                               (from >= 0 && from < stages_
                                    ? " on rank " + std::to_string(stage_rank_[from]) + "'s row"
                                    : "") +
                               " to send what " + quoted(cell_text(c)) +
                               " receives, found none (it would wait forever)");
        }
        received[key(c.a.type, c.a.stage, c.a.mb)] = true;
        continue;
      }
      if (!is_torch_compute(c.a.type)) continue;
      auto needs = [&](T type, int32_t stage, int32_t mb) -> Status {
        const bool forward = type == T::kF;
        if (type == T::kW) return Status::ok();
        const int64_t from = forward ? stage - 1 : stage + 1;
        if (from < 0 || from >= stages_ || stage_rank_[from] == static_cast<int32_t>(r)) {
          return Status::ok();
        }
        const T recv = forward ? T::kRecvF : T::kRecvB;
        if (received.count(key(recv, stage, mb))) return Status::ok();
        return fail_cell(c, r,
                         "expected \"" + std::to_string(stage) + torch_type_text(recv) +
                             std::to_string(mb) + "\" earlier on rank " + std::to_string(r) +
                             "'s row, found " + quoted(cell_text(c)) +
                             " before its input (PyTorch's runtime stops here: computing before "
                             "receiving input)");
      };
      const Status ok = c.a.type == T::kOverlap
                            ? [&] {
                                Status f = needs(T::kF, c.a.f_stage, c.a.f_mb);
                                return f.is_ok() ? needs(T::kB, c.a.b_stage, c.a.b_mb) : f;
                              }()
                            : needs(c.a.type, c.a.stage, c.a.mb);
      if (!ok.is_ok()) return ok;
    }
  }
  return Status::ok();
}

Result<ScheduleResult> CsvReader::build() {
  const int32_t p = problem_.devices;
  const int64_t S = stages_;
  Placement placement;
  auto matches = [&](auto device_of) {
    for (int64_t s = 0; s < S; ++s) {
      if (stage_rank_[s] != device_of(s)) return false;
    }
    return true;
  };
  if (S == p && matches([](int64_t s) { return s; })) {
    placement.kind = PlacementKind::kLinear;
  } else if (S % p == 0 && S / p >= 2 && matches([&](int64_t s) { return s % p; })) {
    placement.kind = PlacementKind::kInterleaved;
    placement.chunks = static_cast<int32_t>(S / p);
  } else if (S == 2 * p && matches([&](int64_t s) { return s < p ? s : 2 * p - 1 - s; })) {
    placement.kind = PlacementKind::kVShape;
  } else {
    placement.kind = PlacementKind::kExplicit;
    placement.devices = {std::vector<int32_t>(stage_rank_.begin(), stage_rank_.begin() + S)};
  }
  Problem target = problem_;
  if (problem_.placement.kind == PlacementKind::kAuto) {
    target.placement = placement;
  } else if (problem_.placement.kind != placement.kind ||
             (placement.kind == PlacementKind::kInterleaved &&
              problem_.placement.chunks != placement.chunks) ||
             (placement.kind == PlacementKind::kExplicit &&
              problem_.placement.devices != placement.devices)) {
    return fail(bom_, "expected the problem's " +
                          std::string(placement_name(problem_.placement.kind)) +
                          " placement, found the CSV's " + std::to_string(S) + " stages placed " +
                          placement_name(placement.kind));
  }
  Result<Expansion> expansion = expand(target, target.placement);
  if (!expansion.is_ok()) {
    return Status(StatusCode::kInvalidInput, source_ + ": " + expansion.status().message());
  }
  const Expansion& e = expansion.value();
  Order order;
  order.unit_device.resize(e.num_units());
  for (int32_t u = 0; u < e.num_units(); ++u) order.unit_device[u] = e.units[u].devices[0];
  order.device_slots.assign(p, {});
  std::vector<std::pair<int32_t, int32_t>> cell_of_op(e.num_ops(), {-1, -1});  // (rank, index)
  std::vector<std::vector<int32_t>> cell_of_slot(p);
  for (int32_t r = 0; r < p; ++r) {
    for (size_t k = 0; k < rows_[r].size(); ++k) {
      const CellAct& c = rows_[r][k];
      if (!is_torch_compute(c.a.type)) continue;
      auto op_at = [&](int32_t stage, int32_t mb, OpKind kind) -> Result<int32_t> {
        if (mb >= e.microbatches) {
          return fail_cell(c, r,
                           "expected micro-batches 0.." + std::to_string(e.microbatches - 1) +
                               " (the problem has " + std::to_string(e.microbatches) + "), found " +
                               quoted(cell_text(c)));
        }
        return e.op_of(mb, e.unit_at(0, stage), kind);
      };
      Slot slot;
      if (c.a.type == T::kOverlap) {
        Result<int32_t> f = op_at(c.a.f_stage, c.a.f_mb, OpKind::kF);
        if (!f.is_ok()) return f.status();
        Result<int32_t> b = op_at(c.a.b_stage, c.a.b_mb, OpKind::kB);
        if (!b.is_ok()) return b.status();
        slot = {f.value(), b.value(), SlotKind::kPair};
      } else {
        const OpKind kind = c.a.type == T::kF   ? OpKind::kF
                            : c.a.type == T::kW ? OpKind::kW
                                                : OpKind::kB;
        Result<int32_t> op = op_at(c.a.stage, c.a.mb, kind);
        if (!op.is_ok()) return op.status();
        slot = {op.value(), -1, c.a.type == T::kB ? SlotKind::kFullBackward : SlotKind::kSingle};
      }
      int32_t ops[3];
      const int32_t count = slot_ops(e, slot, ops);
      for (int32_t i = 0; i < count; ++i) {
        if (cell_of_op[ops[i]].first >= 0) {
          const CellAct& before = rows_[cell_of_op[ops[i]].first][cell_of_op[ops[i]].second];
          const auto [line, column] = where(before.byte);
          return fail_cell(c, r,
                           "expected each computation once, found " + quoted(cell_text(c)) +
                               " running " + op_words(e, ops[i]) + " a second time (first in " +
                               quoted(cell_text(before)) + " at line " + std::to_string(line) +
                               ", column " + std::to_string(column) + ")");
        }
        cell_of_op[ops[i]] = {r, static_cast<int32_t>(k)};
      }
      order.device_slots[r].push_back(slot);
      cell_of_slot[r].push_back(static_cast<int32_t>(k));
    }
  }
  for (int32_t op = 0; op < e.num_ops(); ++op) {
    if (cell_of_op[op].first >= 0) continue;
    const int32_t r = order.unit_device[e.ops[op].unit];
    const Op& o = e.ops[op];
    const std::string stage = std::to_string(e.units[o.unit].stage);
    const std::string mb = std::to_string(o.microbatch);
    const std::string hint = o.kind == OpKind::kF ? stage + "F" + mb
                             : o.kind == OpKind::kB
                                 ? stage + "I" + mb + " (or " + stage + "B" + mb + ")"
                                 : stage + "W" + mb + " (or " + stage + "B" + mb + ")";
    // The end of the row.
    size_t end = row_start_[r];
    while (end < text_.size() && text_[end] != '\n' && text_[end] != '\r') ++end;
    return Status(StatusCode::kInvalidInput, at(end) + " (rank " + std::to_string(r) +
                                                 "): expected " + hint + ", " + op_words(e, op) +
                                                 ", on this row, found the end of the row");
  }
  std::vector<size_t> blocked;
  Result<Timeline> timeline = simulate(e, order, &blocked);
  if (!timeline.is_ok()) {
    if (blocked.empty()) {
      return Status(StatusCode::kInvalidInput, source_ + ": " + timeline.status().message());
    }
    // Point at the first rank that waits, and at what it waits for.
    std::vector<char> done(e.num_ops(), 0);
    for (int32_t r = 0; r < p; ++r) {
      for (size_t k = 0; k < blocked[r]; ++k) {
        int32_t ops[3];
        const int32_t count = slot_ops(e, order.device_slots[r][k], ops);
        for (int32_t i = 0; i < count; ++i) done[ops[i]] = 1;
      }
    }
    for (int32_t r = 0; r < p; ++r) {
      if (blocked[r] >= order.device_slots[r].size()) continue;
      const Slot& slot = order.device_slots[r][blocked[r]];
      const CellAct& here = rows_[r][cell_of_slot[r][blocked[r]]];
      int32_t ops[3];
      const int32_t count = slot_ops(e, slot, ops);
      for (int32_t i = 0; i < count; ++i) {
        for (int32_t a = e.pred_begin[ops[i]]; a < e.pred_begin[ops[i] + 1]; ++a) {
          const int32_t from = e.arcs[e.pred_arcs[a]].from;
          if (done[from] || std::find(ops, ops + count, from) != ops + count) continue;
          const auto [wr, wk] = cell_of_op[from];
          const CellAct& there = rows_[wr][wk];
          const auto [line, column] = where(there.byte);
          return fail_cell(
              here, r,
              "expected an order that can run, found a deadlock here: " + quoted(cell_text(here)) +
                  " waits for " + quoted(cell_text(there)) + " (line " + std::to_string(line) +
                  ", column " + std::to_string(column) + ", rank " + std::to_string(wr) +
                  ") and no rank can move on");
        }
      }
    }
    return Status(StatusCode::kInvalidInput, source_ + ": " + timeline.status().message());
  }
  return evaluate_timeline(target, std::move(expansion).value(), std::move(timeline).value(),
                           "imported");
}

Result<ScheduleResult> CsvReader::read() {
  if (problem_.form != Form::kStages) {
    return Status(StatusCode::kInvalidInput,
                  source_ +
                      ": the PyTorch schedule CSV describes a chain of stages; this problem is an "
                      "operator graph");
  }
  Status status = check_bytes();
  if (status.is_ok()) status = split();
  if (status.is_ok()) status = check_rows();
  if (status.is_ok()) status = map_stages();
  if (status.is_ok()) status = check_comms();
  if (!status.is_ok()) return status;
  return build();
}

}  // namespace

Result<ScheduleResult> read_pytorch_csv(const Problem& problem, const std::string& source,
                                        std::string_view text, std::optional<CsvFormat> format) {
  return CsvReader(problem, source, text, format).read();
}

}  // namespace shardlab::pipeline
