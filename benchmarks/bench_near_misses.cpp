// Near misses (geometry/hulls_apart.h): every pair of six convex primitives at random attitudes, lowered until the
// public query finds an overlap (bisection), then lifted by a random gap of 0.1-2 mm; only poses whose boxes still
// overlap are timed (the median of 3 queries, one thread). Before the hulls' proof, these took the convex lens's failed
// footprint search and then the column engine: 1-46 ms a query.
//
//   build-tests/benchmarks/bench_near_misses
#include <chrono>
#include <cstdio>
#include <random>
#include <algorithm>
#include <tbb/global_control.h>
#include "geometry/interference.h"
#include "tests/geometry_support.h"
using namespace geometry_support;
static double now_us(){return std::chrono::duration<double,std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();}
int main() {
  const tbb::global_control one(tbb::global_control::max_allowed_parallelism,1);
  Primitive ellipsoid = primitive(PrimitiveKind::Ellipsoid); ellipsoid.radii = Vec3(0.04,0.025,0.015);
  std::vector<std::pair<const char*,Primitive>> P = {{"ball",sphere(0.03)},{"box",box(Vec3(0.08,0.05,0.03))},{"cylinder",rod(PrimitiveKind::Cylinder,0.025,0.1)},{"cone",rod(PrimitiveKind::Cone,0.03,0.08,0.0)},{"capsule",rod(PrimitiveKind::Capsule,0.015,0.08)},{"ellipsoid",ellipsoid}};
  std::mt19937 rng(7); std::uniform_real_distribution<double> unit(0,1);
  for (size_t i=0;i<P.size();++i) for (size_t j=i;j<P.size();++j){
    Cell a=make_cell({P[i].second}), b=make_cell({P[j].second});
    std::vector<double> ts; int boxes=0;
    for (int t=0;t<10;++t){
      const Quat qa=random_rotation(rng), qb=random_rotation(rng);
      const Vec3 at(0.03*(unit(rng)-0.5),0.03*(unit(rng)-0.5),0);
      const Pose pa{Vec3::Zero(),qa};
      // touching height by bisection on V (tiny), then lift by a gap
      const double h=height_for_volume(a,pa,b,qb,at,1e-12,-0.3,0.3,50);
      const double gap=std::pow(10.0,-4+1.3*unit(rng));
      const Pose pb{at+Vec3(0,0,h+gap),qb};
      auto ba=world_bounds(a,pa), bb=world_bounds(b,pb);
      if (((ba.min.cwiseMax(bb.min)).array()>=(ba.max.cwiseMin(bb.max)).array()).any()) continue;
      ++boxes;
      double us[3]; Interference q;
      for(double& u:us){double s=now_us(); q=interference(a,pa,b,pb); u=now_us()-s;}
      std::sort(us,us+3); ts.push_back(us[1]);
      if (q.overlap) printf("  %s-%s: overlap at a gap?! V %.2e\n",P[i].first,P[j].first,q.volume);
    }
    if (ts.empty()) continue;
    std::sort(ts.begin(),ts.end());
    printf("%-10s %-10s apart, boxes overlap: %d poses, median %.0f us, max %.0f us\n",P[i].first,P[j].first,boxes,ts[ts.size()/2],ts.back());
  }
}
