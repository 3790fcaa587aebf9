# Sourced by scripts/avrun and scripts/shmav: finds the executable jar (target/shmav-VERSION-tools.jar,
# the library with every runtime dependency, built by `mvn package`), building it first when it is
# missing or older than the sources, so that the scripts work on a fresh clone with only a JDK and
# Maven. Outside a checkout, run the jar itself: java -jar shmav-VERSION-tools.jar avrun ... / ls ...
#
# SHMAV_CLASSPATH, when set, is used as is with the tool's main class and nothing is built (the
# integration tests set it to their own classpath, so that a test never starts a second Maven in the
# tree being verified).

shmav_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# The executable jar, or nothing.
shmav_tools_jar() {
    local jar
    for jar in "$shmav_root"/target/shmav-*-tools.jar; do
        [ -f "$jar" ] && { printf '%s\n' "$jar"; return; }
    done
}

# True when the jar is missing, or a source or the pom is newer than it.
shmav_stale() {
    local jar
    jar="$(shmav_tools_jar)"
    [ -n "$jar" ] || return 0
    [ -n "$(find "$shmav_root/src/main" "$shmav_root/pom.xml" -newer "$jar" -print -quit 2>/dev/null)" ]
}

# Builds the jar with Maven, showing each build step as it starts (a build takes about a minute, more
# when Maven first downloads its plugins: without progress a user takes it for a hang).
shmav_build() {
    local tool="$1"
    command -v mvn >/dev/null || { echo "$tool: Maven (mvn) is needed to build shmav on first use" >&2; return 1; }
    local log="$shmav_root/target/scripts-build.log"
    local start=$SECONDS
    echo "$tool: building the shmav tools jar with Maven (first use, or the sources changed): about a minute, longer" \
        "while Maven downloads plugins the first time; each step is shown, the whole log goes to $log" >&2
    # Maven's step lines ("[INFO] --- maven-compiler-plugin:3.16.0:compile ..."), as they come
    if ! (cd "$shmav_root" && mvn -B -Dstyle.color=never -Dmaven.test.skip=true package) 2>&1 | tee "$log" |
        sed -un "s/^\[INFO\] --- \([^ ]*\).*/$tool: build step \1/p" >&2; then
        tail -n 30 "$log" >&2
        echo "$tool: the build failed; the whole log is in $log" >&2
        return 1
    fi
    echo "$tool: built in $((SECONDS - start)) s" >&2
}

# shmav_tool_args TOOL MAIN_CLASS [JAR_ARG]: sets the array SHMAV_TOOL_ARGS to what follows `java` and
# its options: `-cp $SHMAV_CLASSPATH MAIN_CLASS`, or `-jar <tools jar> [JAR_ARG]` (building it under a
# lock if needed).
shmav_tool_args() {
    local tool="$1" main="$2" jar_arg="${3:-}"
    if [ -n "${SHMAV_CLASSPATH:-}" ]; then
        SHMAV_TOOL_ARGS=(-cp "$SHMAV_CLASSPATH" "$main")
        return
    fi
    if shmav_stale; then
        mkdir -p "$shmav_root/target"
        # One build at a time when several scripts start together on a fresh clone.
        exec 9>"$shmav_root/target/.scripts-build.lock"
        flock 9
        if shmav_stale; then
            shmav_build "$tool" || return 1
        fi
        exec 9>&-
    fi
    SHMAV_TOOL_ARGS=(-jar "$(shmav_tools_jar)")
    [ -z "$jar_arg" ] || SHMAV_TOOL_ARGS+=("$jar_arg")
}

# shmav_java: the java to run, from JAVA_HOME when set.
shmav_java() {
    if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
        printf '%s\n' "$JAVA_HOME/bin/java"
    else
        command -v java || { echo "shmav: java (17 or later) is not on PATH" >&2; return 1; }
    fi
}

# shmav_newer_java_flags JAVA: sets the array SHMAV_JAVA_FLAGS to what that java needs to run shmav's tools
# without a warning: on Java 22+ native access for the classpath (JNA: the lock files, the PMIx client), on
# Java 23+ sun.misc.Unsafe's memory access (Chronicle Bytes, for dump). Java 17 refuses these flags.
shmav_newer_java_flags() {
    local java="$1" release major
    release="$(dirname "$(dirname "$(readlink -f "$java")")")/release"
    if [ -f "$release" ]; then
        major="$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$release")"
    else
        major="$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
    fi
    SHMAV_JAVA_FLAGS=()
    if [ "${major:-17}" -ge 22 ] 2>/dev/null; then SHMAV_JAVA_FLAGS+=(--enable-native-access=ALL-UNNAMED); fi
    if [ "${major:-17}" -ge 23 ] 2>/dev/null; then SHMAV_JAVA_FLAGS+=(--sun-misc-unsafe-memory-access=allow); fi
}
