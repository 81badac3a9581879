//! Tests of partitioning: validity, balance, edge cut, any part count, the
//! locality order and the text format.

use super::*;
use crate::generate::NacaOGrid;

fn naca(wall_points: usize, rings: usize) -> Cloud {
    NacaOGrid {
        section: "naca0012".parse().unwrap(),
        wall_points,
        rings,
        far_field: 10.0,
        stretching: None,
    }
    .generate()
    .unwrap()
}

/// Checks every invariant of the layouts of `p` on `cloud`.
fn check_layouts(cloud: &Cloud, p: &Partition) {
    let layouts = p.layouts(cloud, None);
    assert_eq!(layouts.len(), p.parts());
    let mut owner_seen = vec![false; cloud.len()];
    for l in &layouts {
        let local: std::collections::HashMap<u32, usize> =
            l.points.iter().enumerate().map(|(j, &i)| (i, j)).collect();
        assert_eq!(
            local.len(),
            l.points.len(),
            "a point twice in part {}",
            l.part
        );
        for (j, &i) in l.points[..l.n_owned].iter().enumerate() {
            assert_eq!(p.part()[i as usize], l.part);
            assert!(!owner_seen[i as usize]);
            owner_seen[i as usize] = true;
            let all_owned = cloud
                .neighbours(i as usize)
                .iter()
                .all(|&k| p.part()[k as usize] == l.part);
            assert_eq!(all_owned, j < l.n_interior);
            for &k in cloud.neighbours(i as usize) {
                assert!(local.contains_key(&k), "stencil point {k} not local");
            }
        }
        for &g in &l.points[l.n_owned..] {
            assert_ne!(p.part()[g as usize], l.part);
        }
        // The blocks tile the ghosts.
        let mut at = l.n_owned;
        for b in &l.recv {
            assert_eq!(b.start, at);
            at += b.len;
            // ... and the owner sends exactly them, in order.
            let owner = &layouts[b.rank as usize];
            let s = owner.send.iter().find(|s| s.rank == l.part).unwrap();
            assert_eq!(s.offset, b.start - l.n_owned);
            let sent: Vec<u32> = s.points.iter().map(|&j| owner.points[j as usize]).collect();
            assert_eq!(sent, l.points[b.start..b.start + b.len]);
            assert!(s.points.iter().all(|&j| (j as usize) < owner.n_owned));
        }
        assert_eq!(at, l.points.len());
    }
    assert!(owner_seen.iter().all(|&s| s));
}

#[test]
fn both_methods_give_valid_balanced_partitions() {
    let c = naca(64, 24);
    for method in [Method::Metis, Method::Rcb] {
        for parts in [1, 2, 3, 4, 5, 7, 16] {
            let p = Partition::new(&c, parts, method).unwrap();
            assert_eq!(p.parts(), parts);
            check_layouts(&c, &p);
            let s = p.stats(&c);
            assert!(s.parts.iter().all(|q| q.points > 0), "{method:?} {parts}");
            assert!(s.imbalance() < 1.1, "{method:?} {parts}: {}", s.imbalance());
            if parts == 1 {
                assert_eq!(s.edge_cut, 0);
                assert_eq!(s.total_ghosts(), 0);
            } else {
                assert!(s.edge_cut > 0);
            }
            if method == Method::Rcb {
                let (lo, hi) = (
                    s.parts.iter().map(|q| q.points).min().unwrap(),
                    s.parts.iter().map(|q| q.points).max().unwrap(),
                );
                assert!(hi - lo <= 1, "rcb {parts}: {lo}..{hi}");
            }
        }
    }
}

#[test]
fn metis_cuts_fewer_edges_than_rcb_or_close() {
    let c = naca(96, 40);
    let m = Partition::metis(&c, 8).unwrap().stats(&c);
    let r = Partition::rcb(&c, 8).unwrap().stats(&c);
    assert!(m.edge_cut <= r.edge_cut + r.edge_cut / 5, "{m:?} {r:?}");
}

#[test]
fn any_count_up_to_the_points_works() {
    let c = naca(16, 4);
    let n = c.len();
    for method in [Method::Metis, Method::Rcb] {
        for parts in [n - 1, n] {
            let p = Partition::new(&c, parts, method).unwrap();
            check_layouts(&c, &p);
            assert!(p.stats(&c).parts.iter().all(|q| q.points >= 1));
        }
        let e = Partition::new(&c, n + 1, method).unwrap_err().to_string();
        assert!(e.contains("at least one point"), "{e}");
        assert!(Partition::new(&c, 0, method).is_err());
    }
}

#[test]
fn locality_order_is_kept_within_classes() {
    let c = naca(32, 10);
    let p = Partition::rcb(&c, 3).unwrap();
    let order = crate::renumber::reverse_cuthill_mckee(&c);
    let layouts = p.layouts(&c, Some(&order));
    for l in &layouts {
        let keys: Vec<u32> = l.points.iter().map(|&i| order[i as usize]).collect();
        assert!(keys[..l.n_interior].windows(2).all(|w| w[0] < w[1]));
        assert!(keys[l.n_interior..l.n_owned]
            .windows(2)
            .all(|w| w[0] < w[1]));
    }
}

#[test]
fn partitions_round_trip_through_text() {
    let c = naca(32, 10);
    let p = Partition::metis(&c, 3).unwrap();
    let path = Path::new("p.part");
    let back = Partition::parse(&p.to_text(), path, c.len(), Some(3)).unwrap();
    assert_eq!(back, p);
    let back = Partition::parse(&p.to_text(), path, c.len(), None).unwrap();
    assert_eq!(back, p);
    let e = Partition::parse(&p.to_text(), path, c.len(), Some(4))
        .unwrap_err()
        .to_string();
    assert!(e.contains("3 parts but 4"), "{e}");
    let e = Partition::parse(&p.to_text(), path, c.len() + 1, Some(3))
        .unwrap_err()
        .to_string();
    assert!(e.contains("part numbers for a cloud"), "{e}");
    let e = Partition::parse("0\nx\n", path, 2, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("p.part:2"), "{e}");
    let e = Partition::parse("0\n5\n", path, 2, Some(2))
        .unwrap_err()
        .to_string();
    assert!(e.contains("6 parts but 2"), "{e}");
}
