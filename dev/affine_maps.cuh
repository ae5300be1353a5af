#pragma once
// Scratch (dev/ only): affine maps x -> a x + b composed left to right (16 bytes, not
// commutative), the user struct of the wide sweeps.
struct affine {
  double a, b;
};
struct compose {
  __host__ __device__ affine operator()(const affine& f, const affine& g) const {
    return {g.a * f.a, g.a * f.b + g.b};
  }
};
