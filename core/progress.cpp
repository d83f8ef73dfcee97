// The progress record's small helpers (progress.h) and its JSON at the edge
// (progress_json.h): counters out as ordered JSON, and back in from the
// page's run record through the positioned reader.
#include "core/progress.h"

#include <cmath>

#include "core/progress_json.h"

namespace shardlab {

Counters& Counters::add_null(std::string name) {
  Entry e;
  e.name = std::move(name);
  e.kind = Kind::kNull;
  set(std::move(e));
  return *this;
}

Counters& Counters::append(const Counters& more) {
  for (const Entry& e : more.entries_) set(e);
  return *this;
}

void Counters::set(Entry entry) {
  for (Entry& e : entries_) {
    if (e.name == entry.name) {
      e = std::move(entry);
      return;
    }
  }
  entries_.push_back(std::move(entry));
}

const Counters::Entry* Counters::find(std::string_view path) const {
  const std::vector<Entry>* level = &entries_;
  for (;;) {
    const size_t dot = path.find('.');
    const std::string_view head = path.substr(0, dot);
    const Entry* hit = nullptr;
    for (const Entry& e : *level) {
      if (e.name == head) hit = &e;
    }
    if (hit == nullptr || dot == std::string_view::npos) return hit;
    if (hit->kind != Kind::kGroup) return nullptr;
    level = &hit->group;
    path = path.substr(dot + 1);
  }
}

double relative_gap(bool found, double incumbent, double bound) {
  if (!found) return 1;
  if (bound >= incumbent) return 0;
  const double scale = std::fabs(incumbent);
  return scale > 0 ? (incumbent - bound) / scale : 1;
}

Progress& with_gap(Progress& progress) {
  progress.gap = relative_gap(progress.found, progress.incumbent, progress.bound);
  return progress;
}

namespace {

void entries_to_json(const std::vector<Counters::Entry>& entries, nlohmann::ordered_json* out) {
  *out = nlohmann::ordered_json::object();
  for (const Counters::Entry& e : entries) {
    nlohmann::ordered_json& slot = (*out)[e.name];
    switch (e.kind) {
      case Counters::Kind::kInt:
        slot = e.integer;
        break;
      case Counters::Kind::kReal:
        slot = e.real;
        break;
      case Counters::Kind::kBool:
        slot = e.flag;
        break;
      case Counters::Kind::kText:
        slot = e.text;
        break;
      case Counters::Kind::kNull:
        slot = nullptr;
        break;
      case Counters::Kind::kGroup:
        entries_to_json(e.group, &slot);
        break;
    }
  }
}

Status entries_from_json(const json::JsonAt& at, int depth, Counters* out) {
  Status s = at.expect(json::Kind::kObject);
  if (!s.is_ok()) return s;
  if (depth > 4) return at.error("counters nested at most 4 deep");
  const std::vector<std::string> names = at.keys();
  for (size_t i = 0; i < names.size(); ++i) {
    const json::JsonAt v = at.member(i);
    const std::string& name = names[i];
    switch (v.kind()) {
      case json::Kind::kNumber:
        if (v.value().integral) {
          out->add(name, v.value().integer);
        } else {
          out->add(name, v.value().number);
        }
        break;
      case json::Kind::kBool:
        out->add(name, v.value().boolean);
        break;
      case json::Kind::kString:
        out->add(name, v.value().text);
        break;
      case json::Kind::kNull:
        out->add_null(name);
        break;
      case json::Kind::kObject: {
        Counters group;
        if (!(s = entries_from_json(v, depth + 1, &group)).is_ok()) return s;
        out->add(name, std::move(group));
        break;
      }
      case json::Kind::kArray:
        return v.error("a number, a string, true, false, null or an object of counters");
    }
  }
  return Status::ok();
}

}  // namespace

nlohmann::ordered_json counters_to_json(const Counters& counters) {
  nlohmann::ordered_json out;
  entries_to_json(counters.entries(), &out);
  return out;
}

Result<Counters> counters_from_json(const json::JsonAt& at) {
  Counters counters;
  const Status s = entries_from_json(at, 0, &counters);
  if (!s.is_ok()) return s;
  return counters;
}

nlohmann::ordered_json progress_to_json(const Progress& progress) {
  nlohmann::ordered_json j;
  j["elapsed_s"] = progress.elapsed_s;
  j["found"] = progress.found;
  j["incumbent"] = progress.found ? nlohmann::ordered_json(progress.incumbent) : nullptr;
  j["bound"] = progress.bound;
  j["gap"] = progress.gap;
  j["finished"] = progress.finished;
  j["counters"] = counters_to_json(progress.counters);
  return j;
}

}  // namespace shardlab
