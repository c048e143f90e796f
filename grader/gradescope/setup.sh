#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder's image, in /autograder/source (the zip's contents).
# It installs JDK 17 and Maven from Ubuntu's packages, makes the unprivileged user student code runs as, builds
# the course, and writes the class path run_autograder uses: every dependency is fetched now, so grading runs
# offline and without Maven.
set -euo pipefail
cd "$(dirname "$0")"

export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends openjdk-17-jdk-headless maven

bash create-sandbox-user.sh

mvn -B -q install -DskipTests -Djacoco.skip=true
mvn -B -q -pl grader dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$PWD/grader/target/gradescope-classpath.txt"
# The grader's own classes go first, then its libraries.
printf '%s:%s:%s' "$PWD/grader/target/test-classes" "$PWD/grader/target/classes" \
    "$(cat grader/target/gradescope-classpath.txt)" > grader/target/gradescope-classpath.txt.tmp
mv grader/target/gradescope-classpath.txt.tmp grader/target/gradescope-classpath.txt

# A dry run on the stubs: the autograder works before the first student submits.
dry="$(mktemp -d)"
mkdir -p "$dry/submission"
cp exercises/src/main/java/dev/shardlings/course/*.java "$dry/submission/"
AUTOGRADER_ROOT="$dry" SHARDLINGS_COURSE="$PWD" GRADE_ONLY='Part08RingShiftTest' bash ./run_autograder
grep -q '"tests"' "$dry/results/results.json"
rm -rf "$dry"
