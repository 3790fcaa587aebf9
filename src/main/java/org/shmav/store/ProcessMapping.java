package org.shmav.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The job's layout as MPICH's launchers describe it in {@code PMI_process_mapping}: a vector of blocks
 * {@code (node, nodes, ranks)}, each putting {@code ranks} consecutive ranks on each of {@code nodes} nodes
 * from {@code node} on, the whole vector repeated until every rank has a node. Block placement of 1,024
 * ranks over 8 nodes is {@code (vector,(0,8,128))}; round robin over 8 is {@code (vector,(0,8,1))}.
 */
final class ProcessMapping
{
    private static final Pattern WHOLE = Pattern.compile("\\(vector(,\\(\\d{1,9},\\d{1,9},\\d{1,9}\\))+\\)");
    private static final Pattern BLOCK = Pattern.compile("\\((\\d+),(\\d+),(\\d+)\\)");

    private ProcessMapping()
    {
    }

    /**
     * The lowest rank of each node, in rank order, or empty when {@code mapping} is not such a vector or
     * does not place every one of {@code size} ranks.
     *
     * @param mapping the value of {@code PMI_process_mapping}
     * @param size    the job's size
     * @return the ranks, one per node that holds any
     */
    static Optional<int[]> nodeLeaders(final String mapping, final int size)
    {
        final List<int[]> blocks = blocks(mapping);
        if (blocks.isEmpty() || size < 1)
        {
            return Optional.empty();
        }
        int nodes = 0;
        for (final int[] b : blocks)
        {
            nodes = Math.max(nodes, b[0] + b[1]);
        }
        final int[] lowest = new int[nodes];
        Arrays.fill(lowest, -1);
        int rank = 0;
        while (rank < size)
        {
            for (final int[] b : blocks)
            {
                for (int node = b[0]; node < b[0] + b[1] && rank < size; node++)
                {
                    if (lowest[node] < 0)
                    {
                        lowest[node] = rank;
                    }
                    rank += Math.min(b[2], size - rank);
                }
            }
        }
        return Optional.of(Arrays.stream(lowest).filter(r -> r >= 0).sorted().toArray());
    }

    /** The {@code (node, nodes, ranks)} triples, or none when the text is not a vector of them. */
    private static List<int[]> blocks(final String mapping)
    {
        final String text = mapping == null ? "" : mapping.replace(" ", "");
        if (!WHOLE.matcher(text).matches())
        {
            return List.of();
        }
        final List<int[]> blocks = new ArrayList<>();
        final Matcher m = BLOCK.matcher(text);
        while (m.find())
        {
            try
            {
                final int[] b = {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))};
                if (b[1] < 1 || b[2] < 1 || b[0] + b[1] > 1 << 20)
                {
                    return List.of();
                }
                blocks.add(b);
            }
            catch (final NumberFormatException e)
            {
                return List.of(); // beyond an int
            }
        }
        return blocks;
    }
}
