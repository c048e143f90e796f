package dev.shardlings.grader.chapter6;

import dev.shardlings.array.NDArray;

import java.util.ArrayList;
import java.util.List;

/**
 * Chapter 6's oracles, computed on whole arrays in double precision with hand-written backpropagation — not with
 * the framework's autodiff, and never by calling solutions/. The MLP is seed 001's: for each layer
 * {@code out = in·W + b}, {@code in = max(out, 0)}; loss = mean over rows of Σ_j (out_j − t_j)².
 */
public final class Chapter6Oracles {

    private Chapter6Oracles() {
    }

    /** A matrix as rows of doubles. */
    static double[][] matrix(NDArray a) {
        int[] s = a.shape();
        float[] v = a.toFloatArray();
        double[][] m = new double[s[0]][s[1]];
        for (int i = 0; i < s[0]; i++) {
            for (int j = 0; j < s[1]; j++) {
                m[i][j] = v[i * s[1] + j];
            }
        }
        return m;
    }

    static double[] vector(NDArray a) {
        float[] v = a.toFloatArray();
        double[] d = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            d[i] = v[i];
        }
        return d;
    }

    static NDArray toArray(double[][] m) {
        float[] v = new float[m.length * m[0].length];
        for (int i = 0; i < m.length; i++) {
            for (int j = 0; j < m[0].length; j++) {
                v[i * m[0].length + j] = (float) m[i][j];
            }
        }
        return NDArray.fromFloats(v, m.length, m[0].length);
    }

    static NDArray toArray(double[] d) {
        float[] v = new float[d.length];
        for (int i = 0; i < d.length; i++) {
            v[i] = (float) d[i];
        }
        return NDArray.fromFloats(v, d.length);
    }

    static double[][] matmul(double[][] a, double[][] b) {
        int n = a.length;
        int k = b.length;
        int m = b[0].length;
        double[][] c = new double[n][m];
        for (int i = 0; i < n; i++) {
            for (int p = 0; p < k; p++) {
                double v = a[i][p];
                for (int j = 0; j < m; j++) {
                    c[i][j] += v * b[p][j];
                }
            }
        }
        return c;
    }

    static double[][] transpose(double[][] a) {
        double[][] t = new double[a[0].length][a.length];
        for (int i = 0; i < a.length; i++) {
            for (int j = 0; j < a[0].length; j++) {
                t[j][i] = a[i][j];
            }
        }
        return t;
    }

    /** The parameters [W1, b1, …] as doubles: W's as matrices, b's as rows of one. */
    private static List<double[][]> doubles(List<NDArray> params) {
        List<double[][]> p = new ArrayList<>();
        for (int k = 0; k < params.size(); k++) {
            p.add(k % 2 == 0 ? matrix(params.get(k)) : new double[][]{vector(params.get(k))});
        }
        return p;
    }

    /** The loss's gradients [dW1, db1, …] by backpropagation. */
    static List<double[][]> gradients(List<double[][]> p, double[][] x, double[][] t) {
        int layers = p.size() / 2;
        List<double[][]> ins = new ArrayList<>();
        List<double[][]> outs = new ArrayList<>();
        double[][] in = x;
        for (int l = 0; l < layers; l++) {
            ins.add(in);
            double[][] out = matmul(in, p.get(2 * l));
            double[] b = p.get(2 * l + 1)[0];
            for (double[] row : out) {
                for (int j = 0; j < row.length; j++) {
                    row[j] += b[j];
                }
            }
            outs.add(out);
            double[][] next = new double[out.length][out[0].length];
            for (int i = 0; i < out.length; i++) {
                for (int j = 0; j < out[0].length; j++) {
                    next[i][j] = Math.max(out[i][j], 0);
                }
            }
            in = next;
        }
        int rows = x.length;
        double[][] last = outs.get(layers - 1);
        double[][] g = new double[rows][last[0].length];
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < last[0].length; j++) {
                g[i][j] = 2 * (last[i][j] - t[i][j]) / rows;
            }
        }
        double[][][] grads = new double[2 * layers][][];
        for (int l = layers - 1; l >= 0; l--) {
            grads[2 * l] = matmul(transpose(ins.get(l)), g);
            double[] db = new double[g[0].length];
            for (double[] row : g) {
                for (int j = 0; j < row.length; j++) {
                    db[j] += row[j];
                }
            }
            grads[2 * l + 1] = new double[][]{db};
            if (l > 0) {
                double[][] back = matmul(g, transpose(p.get(2 * l)));
                double[][] pre = outs.get(l - 1);
                for (int i = 0; i < back.length; i++) {
                    for (int j = 0; j < back[0].length; j++) {
                        // jnp.maximum(x, 0)'s derivative, as JAX defines it: 1 above 0, ½ at a tie, 0 below
                        back[i][j] *= pre[i][j] > 0 ? 1 : pre[i][j] == 0 ? 0.5 : 0;
                    }
                }
                g = back;
            }
        }
        return List.of(grads);
    }

    /** The loss itself, in double. */
    static double loss(List<double[][]> p, double[][] x, double[][] t) {
        double[][] in = x;
        double[][] out = null;
        for (int l = 0; l < p.size() / 2; l++) {
            out = matmul(in, p.get(2 * l));
            double[] b = p.get(2 * l + 1)[0];
            in = new double[out.length][out[0].length];
            for (int i = 0; i < out.length; i++) {
                for (int j = 0; j < out[0].length; j++) {
                    out[i][j] += b[j];
                    in[i][j] = Math.max(out[i][j], 0);
                }
            }
        }
        double s = 0;
        for (int i = 0; i < out.length; i++) {
            for (int j = 0; j < out[0].length; j++) {
                double d = out[i][j] - t[i][j];
                s += d * d;
            }
        }
        return s / out.length;
    }

    /**
     * The parameters after {@code steps} SGD steps of {@code lr} on the whole batch.
     *
     * @return [W1, b1, …] as float32 arrays of the parameters' shapes
     */
    public static List<NDArray> train(List<NDArray> params, NDArray inputs, NDArray targets, int steps, double lr) {
        List<double[][]> p = doubles(params);
        double[][] x = matrix(inputs);
        double[][] t = matrix(targets);
        for (int s = 0; s < steps; s++) {
            List<double[][]> g = gradients(p, x, t);
            List<double[][]> next = new ArrayList<>();
            for (int k = 0; k < p.size(); k++) {
                double[][] a = p.get(k);
                double[][] d = g.get(k);
                double[][] u = new double[a.length][a[0].length];
                for (int i = 0; i < a.length; i++) {
                    for (int j = 0; j < a[0].length; j++) {
                        u[i][j] = a[i][j] - lr * d[i][j];
                    }
                }
                next.add(u);
            }
            p = next;
        }
        List<NDArray> out = new ArrayList<>();
        for (int k = 0; k < p.size(); k++) {
            out.add(k % 2 == 0 ? toArray(p.get(k)) : toArray(p.get(k)[0]));
        }
        return out;
    }

    /** The loss of these parameters on this batch (double, for reports). */
    public static double loss(List<NDArray> params, NDArray inputs, NDArray targets) {
        return loss(doubles(params), matrix(inputs), matrix(targets));
    }

    /**
     * Megatron's block and its pullback: y = relu(x·W1)·W2, and for the cotangent dY: dX, dW1, dW2.
     *
     * @return [y, dX, dW1, dW2]
     */
    public static List<NDArray> megatron(NDArray x, NDArray w1, NDArray w2, NDArray dy) {
        double[][] xd = matrix(x);
        double[][] a = matrix(w1);
        double[][] b = matrix(w2);
        double[][] g = matrix(dy);
        double[][] pre = matmul(xd, a);
        double[][] h = new double[pre.length][pre[0].length];
        for (int i = 0; i < pre.length; i++) {
            for (int j = 0; j < pre[0].length; j++) {
                h[i][j] = Math.max(pre[i][j], 0);
            }
        }
        double[][] y = matmul(h, b);
        double[][] dh = matmul(g, transpose(b));
        for (int i = 0; i < dh.length; i++) {
            for (int j = 0; j < dh[0].length; j++) {
                dh[i][j] = pre[i][j] > 0 ? dh[i][j] : 0;
            }
        }
        return List.of(toArray(y), toArray(matmul(dh, transpose(a))), toArray(matmul(transpose(xd), dh)),
                toArray(matmul(transpose(h), g)));
    }
}
