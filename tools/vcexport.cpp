// `vcsim export`: vcsim HDF5 output -> VTK XML PolyData (.vtp) per body per frame + a .pvd collection.
#include "tools/vcexport.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "engine/input_error.h"
#include "engine/io/scenario_loader.h"
#include "engine/output_format.h"
#include "engine/output_reader.h"
#include "engine/simulation.h"
#include "geometry/located_error.h"
#include "geometry/surface_mesh.h"

namespace fs = std::filesystem;

namespace vcsim::viz {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The datasets export needs, copied out of the reader (engine/output_reader.h).
using Table = Series;
std::optional<Table> read_table(OutputReader& file, const std::string& path) {
  if (const Series* s = file.find(path)) return *s;
  return std::nullopt;
}

struct PairData {
  std::string name;
  Table in_contact, force, point, torque_about_point;
  std::optional<Table> normal, volume;
};

struct OutputData {
  std::string scenario_text, scenario_file, scenario_name, status;
  Table time;
  size_t samples = 0;
  std::map<std::string, std::pair<Table, Table>> body_pose;  // name -> (position, orientation)
  std::vector<PairData> pairs;
};

// Opens a vcsim output; BadOutputFile (exit status 2) saying what is wrong otherwise.
OutputReader open_vcsim_output(const std::string& path) {
  try {
    return OutputReader(path);
  } catch (const OutputReadError& e) {
    throw BadOutputFile(e.what());
  }
}

// ---------------------------------------------------------------------------------------------
// VTK XML PolyData writer: appended raw binary data, UInt64 headers, optional zlib compression.

struct DataArray {
  std::string name;
  std::string type;  // "Float32", "Float64", "Int32"
  int components = 1;
  std::string bytes;
  template <class T>
  static DataArray of(const std::string& name, const char* type, int components, const std::vector<T>& v) {
    DataArray a{name, type, components, {}};
    a.bytes.assign(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
    return a;
  }
};

struct PolyData {
  std::vector<float> points;  // 3 per point
  enum class Cells { Polys, Verts } kind = Cells::Polys;
  std::vector<int32_t> connectivity, offsets;
  std::vector<DataArray> point_data, cell_data, field_data;
};

std::string encode_block(const std::string& raw, bool compress) {
  std::string out;
  auto put64 = [&](uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); };
  if (!compress) {
    put64(raw.size());
    out += raw;
    return out;
  }
  // vtkZLibDataCompressor layout: [nblocks][block size][last partial block size][compressed sizes...][data]
  const size_t block = 1 << 16;
  const size_t nfull = raw.size() / block, last = raw.size() % block;
  const size_t nblocks = nfull + (last ? 1 : 0);
  std::vector<std::string> packed(nblocks);
  for (size_t b = 0; b < nblocks; ++b) {
    const size_t n = std::min(block, raw.size() - b * block);
    uLongf len = compressBound(n);
    packed[b].resize(len);
    if (compress2(reinterpret_cast<Bytef*>(packed[b].data()), &len,
                  reinterpret_cast<const Bytef*>(raw.data() + b * block), n, 1) != Z_OK)
      throw std::runtime_error("zlib compression failed");
    packed[b].resize(len);
  }
  put64(nblocks);
  put64(block);
  put64(last);
  for (const auto& p : packed) put64(p.size());
  for (const auto& p : packed) out += p;
  return out;
}

void write_vtp(const fs::path& path, const PolyData& pd, bool compress) {
  std::ostringstream xml;
  std::string appended;
  auto array_xml = [&](const DataArray& a, const std::string& indent) {
    xml << indent << "<DataArray type=\"" << a.type << "\"";
    if (!a.name.empty()) xml << " Name=\"" << a.name << "\"";
    if (a.components != 1) xml << " NumberOfComponents=\"" << a.components << "\"";
    xml << " format=\"appended\" offset=\"" << appended.size() << "\"/>\n";
    appended += encode_block(a.bytes, compress);
  };
  const size_t npoints = pd.points.size() / 3, ncells = pd.offsets.size();
  xml << "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\""
      << " header_type=\"UInt64\"" << (compress ? " compressor=\"vtkZLibDataCompressor\"" : "") << ">\n<PolyData>\n";
  if (!pd.field_data.empty()) {
    xml << "<FieldData>\n";
    for (const auto& a : pd.field_data) {
      xml << "  <DataArray type=\"" << a.type << "\" Name=\"" << a.name << "\"";
      if (a.components != 1) xml << " NumberOfComponents=\"" << a.components << "\"";
      xml << " NumberOfTuples=\"" << a.bytes.size() / (a.type == "Float64" ? 8 : 4) / a.components
          << "\" format=\"appended\" offset=\"" << appended.size() << "\"/>\n";
      appended += encode_block(a.bytes, compress);
    }
    xml << "</FieldData>\n";
  }
  const bool verts = pd.kind == PolyData::Cells::Verts;
  xml << "<Piece NumberOfPoints=\"" << npoints << "\" NumberOfVerts=\"" << (verts ? ncells : 0)
      << "\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"" << (verts ? 0 : ncells) << "\">\n";
  xml << "<PointData>\n";
  for (const auto& a : pd.point_data) array_xml(a, "  ");
  xml << "</PointData>\n<CellData>\n";
  for (const auto& a : pd.cell_data) array_xml(a, "  ");
  xml << "</CellData>\n<Points>\n";
  array_xml(DataArray::of("Points", "Float32", 3, pd.points), "  ");
  xml << "</Points>\n" << (verts ? "<Verts>\n" : "<Polys>\n");
  array_xml(DataArray::of("connectivity", "Int32", 1, pd.connectivity), "  ");
  array_xml(DataArray::of("offsets", "Int32", 1, pd.offsets), "  ");
  xml << (verts ? "</Verts>\n" : "</Polys>\n") << "</Piece>\n</PolyData>\n<AppendedData encoding=\"raw\">\n_";
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error(path.string() + ": error: cannot create file: " + std::strerror(errno));
  const std::string head = xml.str();
  out.write(head.data(), head.size());
  out.write(appended.data(), appended.size());
  out << "\n</AppendedData>\n</VTKFile>\n";
  if (!out) throw std::runtime_error(path.string() + ": error: write failed");
}

std::string xml_escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    switch (c) {
      case '&': r += "&amp;"; break;
      case '<': r += "&lt;"; break;
      case '>': r += "&gt;"; break;
      case '"': r += "&quot;"; break;
      default: r += c;
    }
  }
  return r;
}

// File-name-safe version of a body name.
std::string safe_name(const std::string& s) {
  std::string r;
  for (char c : s) r += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return r.empty() ? "body" : r;
}

// ---------------------------------------------------------------------------------------------

Pose pose_at(const std::pair<Table, Table>& pose, size_t i) {
  const double* p = pose.first.row(i);
  const double* q = pose.second.row(i);
  return Pose{Vec3(p[0], p[1], p[2]), Quat(q[0], q[1], q[2], q[3]).normalized()};
}

geo::Aabb transformed_box(const geo::Aabb& box, const Pose& to_frame) {
  geo::Aabb r;
  for (int c = 0; c < 8; ++c) {
    const Vec3 x((c & 1) ? box.max.x() : box.min.x(), (c & 2) ? box.max.y() : box.min.y(),
                 (c & 4) ? box.max.z() : box.min.z());
    const Vec3 y = to_frame.apply(x);
    r.min = r.min.cwiseMin(y);
    r.max = r.max.cwiseMax(y);
  }
  return r;
}

// Per-vertex normals (area-weighted face normals) of a mesh.
std::vector<Vec3> vertex_normals(const geo::SurfaceMesh& m) {
  std::vector<Vec3> n(m.points.size(), Vec3::Zero());
  for (const auto& t : m.triangles) {
    const Vec3 f = (m.points[t[1]] - m.points[t[0]]).cross(m.points[t[2]] - m.points[t[0]]);
    for (int k = 0; k < 3; ++k) n[t[k]] += f;
  }
  for (auto& v : n) {
    const double l = v.norm();
    if (l > 0) v /= l;
  }
  return n;
}

PolyData mesh_polydata(const geo::SurfaceMesh& m, const std::vector<Vec3>& normals, const Pose& pose,
                       const std::vector<int32_t>& octant, std::optional<double> time, bool world = true) {
  PolyData pd;
  pd.points.reserve(3 * m.points.size());
  std::vector<float> nrm;
  nrm.reserve(3 * m.points.size());
  for (size_t i = 0; i < m.points.size(); ++i) {
    const Vec3 x = pose.apply(m.points[i]);
    const Vec3 n = pose.rotation * normals[i];
    for (int k = 0; k < 3; ++k) pd.points.push_back(static_cast<float>(x[k])), nrm.push_back(static_cast<float>(n[k]));
  }
  pd.connectivity.reserve(3 * m.triangles.size());
  pd.offsets.reserve(m.triangles.size());
  for (const auto& t : m.triangles) {
    pd.connectivity.insert(pd.connectivity.end(), {t[0], t[1], t[2]});
    pd.offsets.push_back(static_cast<int32_t>(pd.connectivity.size()));
  }
  pd.point_data.push_back(DataArray::of("Normals", "Float32", 3, nrm));
  std::vector<int32_t> cell(m.triangle_cell.begin(), m.triangle_cell.end());
  pd.cell_data.push_back(DataArray::of("cell", "Int32", 1, cell));
  pd.cell_data.push_back(DataArray::of("octant", "Int32", 1, octant));
  if (time) pd.field_data.push_back(DataArray::of("TimeValue", "Float64", 1, std::vector<double>{*time}));
  if (world) {  // the body's pose: its centre of mass and attitude (w, x, y, z), as in the HDF5 file
    const Quat& q = pose.rotation;
    pd.field_data.push_back(DataArray::of("position", "Float64", 3,
                                          std::vector<double>{pose.position.x(), pose.position.y(), pose.position.z()}));
    pd.field_data.push_back(DataArray::of("orientation", "Float64", 4, std::vector<double>{q.w(), q.x(), q.y(), q.z()}));
  }
  return pd;
}

// The output's datasets for the export, and the world rebuilt from the scenario text stored in it.
struct ExportInput {
  OutputData out;
  Scenario scenario;
  BuiltWorld built;
};
ExportInput read_export_input(const std::string& input) {
  ExportInput in;
  OutputData& out = in.out;
  OutputReader file = open_vcsim_output(input);
  out.scenario_text = file.text("scenario").value_or("");
  out.scenario_file = file.text("scenario_file").value_or("");
  out.scenario_name = file.text("scenario_name").value_or(fs::path(input).stem().string());
  out.status = file.text("status").value_or("");
  if (out.scenario_text.empty())
    throw BadOutputFile(input + ": error: the vcsim output has no `scenario` attribute (the scenario text "
                                "is needed to rebuild the bodies' geometry)");
  auto time = read_table(file, output_path::kTime);
  if (!time) throw BadOutputFile(input + ": error: cannot read /time");
  out.time = std::move(*time);
  out.samples = out.time.rows;

  // Re-load the scenario from its stored text, through the normal loader; mesh files are relative to the original
  // scenario file.
  try {
    in.scenario = load_scenario_text(out.scenario_text,
                                     out.scenario_file.empty() ? safe_name(out.scenario_name) + ".yaml"
                                                               : out.scenario_file);
    in.built = build_world(in.scenario);
  } catch (const std::exception& e) {
    throw BadOutputFile(input + ": error: the scenario stored in the file does not load: " + e.what());
  }
  const World& world = in.built.world;
  for (const auto& b : world.bodies) {
    auto p = read_table(file, output_path::body(b.name, "position"));
    auto q = read_table(file, output_path::body(b.name, "orientation"));
    if (!p || !q || p->cols != 3 || q->cols != 4)
      throw BadOutputFile(input + ": error: body '" + b.name +
                          "' of the stored scenario has no position/orientation datasets");
    out.samples = std::min({out.samples, p->rows, q->rows});
    out.body_pose[b.name] = {std::move(*p), std::move(*q)};
  }
  for (const auto& c : world.contacts) {
    PairData pd;
    pd.name = c.name;
    auto ic = read_table(file, output_path::contact(c.name, "in_contact"));
    auto f = read_table(file, output_path::contact(c.name, "force"));
    auto pt = read_table(file, output_path::contact(c.name, "point"));
    auto tq = read_table(file, output_path::contact(c.name, "torque_about_point"));
    if (!ic || !f || !pt || !tq) continue;  // an older file without this pair: no glyphs for it
    pd.in_contact = std::move(*ic), pd.force = std::move(*f), pd.point = std::move(*pt);
    pd.torque_about_point = std::move(*tq);
    pd.normal = read_table(file, output_path::contact(c.name, "normal"));
    if (pd.normal && pd.normal->cols != 3) pd.normal.reset();
    pd.volume = read_table(file, output_path::contact(c.name, "volume"));
    if (pd.volume && pd.volume->cols != 1) pd.volume.reset();
    out.samples = std::min({out.samples, pd.in_contact.rows, pd.force.rows, pd.point.rows});
    out.pairs.push_back(std::move(pd));
  }
  if (out.samples == 0) throw BadOutputFile(input + ": error: the vcsim output has no samples");
  return in;
}

// Evenly spaced sample indices, first and last included.
std::vector<size_t> frame_indices(size_t n, int wanted) {
  const size_t nf = std::min<size_t>(n, std::max(1, wanted));
  std::vector<size_t> frames;
  for (size_t k = 0; k < nf; ++k) {
    const size_t i = nf == 1 ? n - 1 : static_cast<size_t>(std::llround(double(k) * double(n - 1) / double(nf - 1)));
    if (frames.empty() || i != frames.back()) frames.push_back(i);
  }
  return frames;
}

// Every bounded cell over every frame, plus a margin. Unbounded cells are clipped to it.
geo::Aabb scene_box(const World& world, OutputData& out, const std::vector<size_t>& frames) {
  geo::Aabb scene;
  for (const auto& b : world.bodies)
    for (const auto& c : b.geometry.cells)
      for (size_t i : frames) {
        const geo::Aabb w = geo::world_bounds(c, pose_at(out.body_pose[b.name], i));
        if (!w.min.allFinite() || !w.max.allFinite()) continue;
        scene.min = scene.min.cwiseMin(w.min);
        scene.max = scene.max.cwiseMax(w.max);
        if (b.fixed) break;
      }
  if (scene.empty()) scene.min = Vec3::Constant(-1), scene.max = Vec3::Constant(1);
  const double margin = std::max(0.25 * (scene.max - scene.min).maxCoeff(), 1e-3);
  scene.min.array() -= margin;
  scene.max.array() += margin;
  return scene;
}

// A body's surface, once, in its centre-of-mass frame.
struct BodyMesh {
  size_t body;
  geo::SurfaceMesh mesh;
  std::vector<Vec3> normals;
  std::vector<int32_t> octant;
};
std::vector<BodyMesh> body_meshes(const World& world, OutputData& out, const geo::Aabb& scene, size_t first_frame,
                                  const ExportOptions& options) {
  std::vector<BodyMesh> meshes;
  for (size_t b = 0; b < world.bodies.size(); ++b) {
    const RigidBody& body = world.bodies[b];
    if (body.geometry.cells.empty()) continue;
    geo::SurfaceMeshOptions mo;
    mo.resolution = options.resolution;
    mo.adaptivity = options.adaptivity;
    mo.clip = transformed_box(scene, pose_at(out.body_pose[body.name], first_frame).inverse());
    BodyMesh bm{b, geo::body_surface_mesh(body.geometry, mo), {}, {}};
    if (bm.mesh.triangles.empty()) continue;
    bm.normals = vertex_normals(bm.mesh);
    for (const auto& t : bm.mesh.triangles) {
      const Vec3 c = (bm.mesh.points[t[0]] + bm.mesh.points[t[1]] + bm.mesh.points[t[2]]) / 3;
      bm.octant.push_back((c.x() > 0) ^ (c.y() > 0) ^ (c.z() > 0));  // a checker pattern that shows rotation
    }
    if (!options.quiet)
      std::cerr << "mesh       " << body.name << ": " << bm.mesh.triangles.size() << " triangles, "
                << bm.mesh.points.size() << " points\n";
    meshes.push_back(std::move(bm));
  }
  return meshes;
}

// The contacts at sample i: one vertex per pair in contact, with its vectors as point data (for Glyph filters).
PolyData contact_glyphs(const OutputData& out, size_t i, double t) {
  PolyData cd;
  cd.kind = PolyData::Cells::Verts;
  std::vector<float> force, normal, torque, volume, normal_force, force_magnitude;
  std::vector<int32_t> pair_index;
  for (size_t p = 0; p < out.pairs.size(); ++p) {
    const PairData& pr = out.pairs[p];
    if (!(pr.in_contact.row(i)[0] > 0.5)) continue;
    const Vec3 x(pr.point.row(i)), f(pr.force.row(i)), tq(pr.torque_about_point.row(i));
    Vec3 nrm = pr.normal ? Vec3(pr.normal->row(i)) : (f.norm() > 0 ? Vec3(f.normalized()) : Vec3(Vec3::Zero()));
    for (int c = 0; c < 3; ++c) {
      cd.points.push_back(static_cast<float>(x[c]));
      force.push_back(static_cast<float>(f[c]));
      normal.push_back(static_cast<float>(nrm[c]));
      torque.push_back(static_cast<float>(tq[c]));
    }
    volume.push_back(pr.volume ? static_cast<float>(pr.volume->row(i)[0]) : 0.0f);
    normal_force.push_back(static_cast<float>(f.dot(nrm)));
    force_magnitude.push_back(static_cast<float>(f.norm()));
    pair_index.push_back(static_cast<int32_t>(p));
    cd.connectivity.push_back(static_cast<int32_t>(cd.connectivity.size()));
    cd.offsets.push_back(static_cast<int32_t>(cd.connectivity.size()));
  }
  cd.point_data = {DataArray::of("force", "Float32", 3, force),
                   DataArray::of("normal", "Float32", 3, normal),
                   DataArray::of("torque_about_point", "Float32", 3, torque),
                   DataArray::of("normal_force", "Float32", 1, normal_force),
                   DataArray::of("force_magnitude", "Float32", 1, force_magnitude),
                   DataArray::of("volume", "Float32", 1, volume),
                   DataArray::of("pair", "Int32", 1, pair_index)};
  cd.field_data.push_back(DataArray::of("TimeValue", "Float64", 1, std::vector<double>{t}));
  return cd;
}

}  // namespace

void check_output_file(const std::string& path) { open_vcsim_output(path); }

ExportSummary export_vtk(const ExportOptions& options) {
  ExportSummary summary;
  ExportInput input = read_export_input(options.input);
  OutputData& out = input.out;
  const Scenario& scenario = input.scenario;
  const World& world = input.built.world;
  summary.scenario_name = scenario.name;
  const std::vector<size_t> frames = frame_indices(out.samples, options.frames);
  const geo::Aabb scene = scene_box(world, out, frames);

  // Output directory.
  const fs::path dir = options.output_dir.empty()
                           ? fs::path(fs::path(options.input).replace_extension("").string() + "-vtk")
                           : fs::path(options.output_dir);
  std::error_code ec;
  fs::create_directories(dir / "bodies", ec);
  fs::create_directories(dir / "frames", ec);
  if (ec || !fs::is_directory(dir / "frames"))
    throw std::runtime_error(dir.string() + ": error: cannot create the output directory" +
                             (ec ? ": " + ec.message() : ""));
  // Old frames from an earlier export with more frames would be confusing: remove ours.
  for (const auto& e : fs::directory_iterator(dir / "frames", ec))
    if (e.path().extension() == ".vtp") fs::remove(e.path(), ec);

  const auto tm = Clock::now();
  const std::vector<BodyMesh> meshes = body_meshes(world, out, scene, frames.front(), options);
  summary.mesh_seconds = seconds_since(tm);

  // Files.
  const auto tw = Clock::now();
  std::ostringstream pvd;
  pvd << "<?xml version=\"1.0\"?>\n"
      << "<!-- vcsim export of " << xml_escape(options.input) << " (scenario " << xml_escape(scenario.name)
      << "): open in ParaView; see docs/visualization.md -->\n"
      << "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n<Collection>\n";
  char num[32];
  for (const auto& bm : meshes) {
    const RigidBody& body = world.bodies[bm.body];
    write_vtp(dir / "bodies" / (safe_name(body.name) + ".vtp"),
              mesh_polydata(bm.mesh, bm.normals, Pose{}, bm.octant, {}, false), options.compress);
    ++summary.files;
    summary.bodies.push_back(body.name);
    summary.triangles.push_back(static_cast<long>(bm.mesh.triangles.size()));
    if (body.fixed) {
      write_vtp(dir / "frames" / (safe_name(body.name) + ".vtp"),
                mesh_polydata(bm.mesh, bm.normals, pose_at(out.body_pose[body.name], frames.front()), bm.octant, {}),
                options.compress);
      ++summary.files;
    }
  }
  const int contacts_part = static_cast<int>(meshes.size());
  for (size_t k = 0; k < frames.size(); ++k) {
    const size_t i = frames[k];
    const double t = out.time.data[i];
    summary.frame_times.push_back(t);
    std::snprintf(num, sizeof num, "%04zu", k);
    std::ostringstream ts;
    ts.precision(12);
    ts << t;
    for (size_t m = 0; m < meshes.size(); ++m) {
      const RigidBody& body = world.bodies[meshes[m].body];
      std::string rel = "frames/" + safe_name(body.name) + (body.fixed ? "" : std::string("_") + num) + ".vtp";
      if (!body.fixed) {
        write_vtp(dir / rel,
                  mesh_polydata(meshes[m].mesh, meshes[m].normals, pose_at(out.body_pose[body.name], i),
                                meshes[m].octant, t),
                  options.compress);
        ++summary.files;
      }
      pvd << "  <DataSet timestep=\"" << ts.str() << "\" group=\"\" part=\"" << m << "\" name=\""
          << xml_escape(body.name) << "\" file=\"" << xml_escape(rel) << "\"/>\n";
    }
    const PolyData cd = contact_glyphs(out, i, t);
    const std::string rel = std::string("frames/contacts_") + num + ".vtp";
    write_vtp(dir / rel, cd, options.compress);
    ++summary.files;
    pvd << "  <DataSet timestep=\"" << ts.str() << "\" group=\"\" part=\"" << contacts_part
        << "\" name=\"contacts\" file=\"" << rel << "\"/>\n";
  }
  pvd << "</Collection>\n</VTKFile>\n";
  const fs::path pvd_path = dir / (safe_name(scenario.name) + ".pvd");
  std::ofstream pf(pvd_path);
  pf << pvd.str();
  if (!pf) throw std::runtime_error(pvd_path.string() + ": error: cannot write");
  ++summary.files;
  summary.write_seconds = seconds_since(tw);
  summary.output_dir = dir.string();
  summary.pvd = pvd_path.string();
  summary.frames = static_cast<int>(frames.size());
  return summary;
}

}  // namespace vcsim::viz
