use qflow_lw::settings::*;
use qflow_lw::{Grid, Settings, Solver};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let (nx, ny): (usize, usize) = (a[1].parse().unwrap(), a[2].parse().unwrap());
    let visc = if a[3] == "paper" { Viscosity::Paper } else { Viscosity::Conservative };
    let wall = if a.get(4).map(|s| s.as_str()) == Some("paper") { Wall::Paper } else { Wall::Mirror };
    let grid = Grid { nx, ny };
    let s = Settings { viscosity: visc, wall, ..Settings::default() };
    let spec = qflow_par::backend::BackendSpec::default();
    let mut sol = Solver::new(&grid, &s, &spec).unwrap();
    let t = std::time::Instant::now();
    let steps = sol.run_to_end().unwrap();
    let el = t.elapsed().as_secs_f64();
    let st = sol.state();
    let ex = qflow_lw::problem::shock(&s).unwrap();
    let mut l1 = 0.0;
    for j in 0..ny { for i in 0..nx {
        let [x, y] = grid.point(i, j, Setup::Exact);
        l1 += (st[j*nx+i][0] - ex.state_at(x, y).rho).abs();
    }}
    l1 /= (nx*ny) as f64;
    // shocks along y=0.5: row j with centre nearest 0.5
    let j = ny / 2; let y = grid.point(0, j, Setup::Exact)[1];
    let r1 = ex.region1.rho; let r2 = ex.region2.rho; let r3 = ex.region3.rho;
    let cross = |lvl: f64, from: usize| -> f64 { for i in from..nx-1 { let (a, b) = (st[j*nx+i][0], st[j*nx+i+1][0]); if (a-lvl)*(b-lvl) <= 0.0 && a != b { let xa = grid.point(i,j,Setup::Exact)[0]; return xa + (lvl-a)/(b-a)*(4.0/nx as f64); } } f64::NAN };
    let x1 = cross(0.5*(r1+r2), 0);
    let x2 = cross(0.5*(r2+r3), (x1/4.0*nx as f64) as usize + 2);
    let p2 = st[j*nx + ((0.5*(ex.incident_x(y)+ex.reflected_x(y))/4.0*nx as f64) as usize)];
    let p3 = st[0*nx + ((3.5/4.0)*nx as f64) as usize];
    let pr = |q: [f64;4]| { let p = qflow_lw::problem::primitive(&q, 1.4); format!("{:.5} {:.5} {:.5} {:.5}", p.rho, p.u, p.v, p.p) };
    println!("{nx}x{ny} {:?} {:?} steps {steps} {:.2}s ({:.1} ns/cell/step) L1 {:.5e} shocks y={y:.4}: {:.4} (exact {:.4}) {:.4} (exact {:.4}) r2 [{}] r3(x=3.5,row0) [{}]", visc, wall, el, el*1e9/(steps as f64*(nx*ny) as f64), l1, x1, ex.incident_x(y), x2, ex.reflected_x(y), pr(p2), pr(p3));
}
