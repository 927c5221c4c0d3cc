//! The FMU state of mass 1 and its equations: value references, the state record (which
//! FMI 3.0 says includes inputs and parameters), get/set by value reference, RK4 micro-steps
//! and serialisation. `lib.rs` holds the FMI 3.0 C ABI around it.

/// Value references (modelDescription.xml).
pub(crate) const TIME: u32 = 0;
pub(crate) const S1: u32 = 1;
pub(crate) const V1: u32 = 2;
pub(crate) const FK: u32 = 3;
pub(crate) const M1: u32 = 4;
pub(crate) const C1: u32 = 5;
pub(crate) const D1: u32 = 6;
pub(crate) const H_MAX: u32 = 7;
pub(crate) const DER_S1: u32 = 8;
pub(crate) const DER_V1: u32 = 9;

/// Everything that makes up the FMU state (FMI 3.0: including inputs and parameters);
/// `fmi3FMUState` points to a boxed copy.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct State {
    pub(crate) time: f64,
    pub(crate) s1: f64,
    pub(crate) v1: f64,
    pub(crate) fk: f64,
    pub(crate) m1: f64,
    pub(crate) c1: f64,
    pub(crate) d1: f64,
    pub(crate) h_max: f64,
}

pub(crate) const START: State = State {
    time: 0.0,
    s1: 0.01,
    v1: 0.0,
    fk: 0.0,
    m1: 10.0,
    c1: 1e6,
    d1: 1.0,
    h_max: 1e-5,
};
pub(crate) const STATE_BYTES: usize = 8 * 8;

impl State {
    pub(crate) fn get(&self, vr: u32) -> Option<f64> {
        Some(match vr {
            TIME => self.time,
            S1 => self.s1,
            V1 => self.v1,
            FK => self.fk,
            M1 => self.m1,
            C1 => self.c1,
            D1 => self.d1,
            H_MAX => self.h_max,
            DER_S1 => self.v1,
            DER_V1 => self.accel(self.s1, self.v1),
            _ => return None,
        })
    }

    pub(crate) fn slot(&mut self, vr: u32) -> Option<&mut f64> {
        Some(match vr {
            S1 => &mut self.s1,
            V1 => &mut self.v1,
            FK => &mut self.fk,
            M1 => &mut self.m1,
            C1 => &mut self.c1,
            D1 => &mut self.d1,
            H_MAX => &mut self.h_max,
            _ => return None,
        })
    }

    pub(crate) fn accel(&self, s: f64, v: f64) -> f64 {
        (-self.c1 * s - self.d1 * v + self.fk) / self.m1
    }

    /// One classical RK4 step of length `h`.
    pub(crate) fn rk4(&mut self, h: f64) {
        let (s, v) = (self.s1, self.v1);
        let (k1s, k1v) = (v, self.accel(s, v));
        let (k2s, k2v) = (
            v + 0.5 * h * k1v,
            self.accel(s + 0.5 * h * k1s, v + 0.5 * h * k1v),
        );
        let (k3s, k3v) = (
            v + 0.5 * h * k2v,
            self.accel(s + 0.5 * h * k2s, v + 0.5 * h * k2v),
        );
        let (k4s, k4v) = (v + h * k3v, self.accel(s + h * k3s, v + h * k3v));
        self.s1 = s + h / 6.0 * (k1s + 2.0 * k2s + 2.0 * k3s + k4s);
        self.v1 = v + h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
    }

    pub(crate) fn to_bytes(self) -> [u8; STATE_BYTES] {
        let mut out = [0u8; STATE_BYTES];
        let fields = [
            self.time, self.s1, self.v1, self.fk, self.m1, self.c1, self.d1, self.h_max,
        ];
        for (chunk, x) in out.chunks_exact_mut(8).zip(fields) {
            chunk.copy_from_slice(&x.to_le_bytes());
        }
        out
    }

    pub(crate) fn from_bytes(b: &[u8]) -> State {
        let f = |i: usize| f64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap_or([0; 8]));
        State {
            time: f(0),
            s1: f(1),
            v1: f(2),
            fk: f(3),
            m1: f(4),
            c1: f(5),
            d1: f(6),
            h_max: f(7),
        }
    }
}
