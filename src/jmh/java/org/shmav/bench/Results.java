package org.shmav.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One run's figures by key (medians, with the number of samples behind each and bytes per operation). */
final class Results
{
    record Value(double median, int samples, double allocPerOp)
    {
    }

    final Map<String, Value> values = new LinkedHashMap<>();

    void put(final String key, final double median, final int samples, final double allocPerOp)
    {
        values.put(key, new Value(median, samples, allocPerOp));
        System.out.printf("= %-45s %14.2f  (n=%d%s)%n", key, median, samples,
            Double.isNaN(allocPerOp) ? "" : String.format(", %.4f B/op", allocPerOp));
    }

    double get(final String key)
    {
        final Value v = values.get(key);
        return v == null ? Double.NaN : v.median();
    }

    double alloc(final String key)
    {
        final Value v = values.get(key);
        return v == null ? Double.NaN : v.allocPerOp();
    }

    int samples(final String key)
    {
        final Value v = values.get(key);
        return v == null ? 0 : v.samples();
    }

    static double median(final List<Double> values)
    {
        return median(values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    static double median(final double[] values)
    {
        if (values.length == 0)
        {
            return Double.NaN;
        }
        final double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
