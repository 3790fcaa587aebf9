package org.shmav.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The nodes' lowest ranks from the mappings MPICH's launchers write, and nothing from anything else. */
class ProcessMappingTest
{
    @Test
    void shouldFindTheLowestRankOfEachNodeInBlockAndRoundRobinPlacement()
    {
        assertArrayEquals(new int[] {0, 128, 256, 384, 512, 640, 768, 896}, leaders("(vector,(0,8,128))", 1024));
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, leaders("(vector,(0,8,1))", 1024));
        assertArrayEquals(new int[] {0, 3}, leaders("(vector,(0,2,3))", 5), "the last node holds fewer");
        assertArrayEquals(new int[] {0}, leaders("(vector,(0,4,2))", 2), "nodes without a rank have no leader");
    }

    @Test
    void shouldFollowSeveralBlocksRepeatedUntilEveryRankHasANode()
    {
        // two nodes of 2 ranks then one of 1, repeated: ranks 0-1 n0, 2-3 n1, 4 n2, 5-6 n0, 7-8 n1, 9 n2
        assertArrayEquals(new int[] {0, 2, 4}, leaders("(vector,(0,2,2),(2,1,1))", 10));
        assertArrayEquals(new int[] {0, 2, 4}, leaders(" (vector, (0,2,2), (2,1,1)) ", 10));
    }

    @Test
    void shouldTellNothingFromWhatIsNotAVectorOfBlocks()
    {
        for (final String bad : new String[] {null, "", "(vector)", "(vector,(0,8))", "(vector,(0,8,x))", "(vector,(-1,2,2))",
            "(vector,(0,0,4))", "(vector,(0,2,0))", "(block,(0,8,128))", "(vector,(0,8,128)", "(vector,(0,2147483647,1))"})
        {
            assertTrue(ProcessMapping.nodeLeaders(bad, 16).isEmpty(), String.valueOf(bad));
        }
        assertTrue(ProcessMapping.nodeLeaders("(vector,(0,8,128))", 0).isEmpty());
    }

    private static int[] leaders(final String mapping, final int size)
    {
        return ProcessMapping.nodeLeaders(mapping, size).orElseThrow();
    }
}
