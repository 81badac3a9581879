use qflow_lw::settings::*;
use qflow_lw::{Grid, Settings, Solver};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let (nx, ny) = (a[1].parse().unwrap(), a[2].parse().unwrap());
    let grid = Grid { nx, ny };
    let s = Settings { viscosity: Viscosity::Paper, wall: Wall::Paper, setup: Setup::PaperCode, ..Settings::default() };
    let spec = qflow_par::backend::BackendSpec::default();
    let mut sol = Solver::new(&grid, &s, &spec).unwrap();
    let t = std::time::Instant::now();
    let steps = sol.run_to_end().unwrap();
    let el = t.elapsed().as_secs_f64();
    eprintln!("steps {steps} dt {:e} time {} ns/cell/step {:.1}", sol.method.dt(), el, el*1e9/(steps as f64*(nx*ny) as f64));
    let st = sol.state();
    if a.len() > 3 {
        let txt = std::fs::read_to_string(&a[3]).unwrap();
        let mut maxd = [0.0f64; 4];
        for line in txt.lines().skip(2) {
            let v: Vec<f64> = line.split_whitespace().map(|x| x.parse().unwrap()).collect();
            let i = (v[0] / (4.0 / nx as f64)).round() as usize - 1;
            let j = (v[1] / (1.0 / ny as f64)).round() as usize - 1;
            let q = st[j * nx + i];
            let p = qflow_lw::problem::primitive(&q, 1.4);
            let mine = [p.rho, p.u, p.v, p.p];
            for k in 0..4 { maxd[k] = maxd[k].max((mine[k] - v[2 + k]).abs()); }
        }
        eprintln!("max diff rho u v p: {:?}", maxd);
    }
}
