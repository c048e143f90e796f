package dev.shardlings.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every pointer into the docs — from exercise Javadoc, the grader's part list and hints, and the Markdown pages
 * themselves — names a page that exists and a heading on it, so a student who follows a link lands somewhere.
 */
class DocsLinksTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern DOC_LINK = Pattern.compile("docs/([A-Za-z0-9_./-]+\\.md)(?:#([a-z0-9_-]+))?");

    @Test
    void everyDocsLinkResolvesToAPageAndHeading() throws IOException {
        List<Path> sources = new ArrayList<>();
        for (String dir : List.of("exercises/src", "solutions/src", "grader/src", "framework/src", "docs")) {
            Path d = ROOT.resolve(dir);
            if (Files.isDirectory(d)) {
                try (Stream<Path> s = Files.walk(d)) {
                    s.filter(p -> p.toString().endsWith(".java") || p.toString().endsWith(".md")).forEach(sources::add);
                }
            }
        }
        sources.add(ROOT.resolve("README.md"));
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path src : sources) {
            String text = Files.readString(src);
            Matcher m = DOC_LINK.matcher(text);
            while (m.find()) {
                links++;
                Path page = ROOT.resolve("docs").resolve(m.group(1));
                if (!Files.isRegularFile(page)) {
                    broken.add(ROOT.relativize(src) + ": docs/" + m.group(1) + " does not exist");
                } else if (m.group(2) != null && !anchors(page).contains(m.group(2))) {
                    broken.add(ROOT.relativize(src) + ": docs/" + m.group(1) + " has no heading #" + m.group(2)
                            + " (headings: " + anchors(page) + ")");
                }
            }
        }
        assertTrue(links > 0, "expected the exercises to link into docs/");
        assertTrue(broken.isEmpty(), "broken docs links:\n" + String.join("\n", broken));
    }

    @Test
    void everyPageHasATitle() throws IOException {
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            List<Path> pages = s.filter(p -> p.toString().endsWith(".md")).toList();
            assertFalse(pages.isEmpty());
            for (Path p : pages) {
                assertTrue(Files.readString(p).startsWith("# "), p + " must start with a '# ' title");
            }
        }
    }

    /** GitHub's heading anchors: lower case, punctuation dropped except '-' and '_', spaces to '-'. */
    static Set<String> anchors(Path page) throws IOException {
        Set<String> out = new HashSet<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(page)) {
            if (line.startsWith("```")) {
                fenced = !fenced;
            }
            if (!fenced && line.startsWith("#")) {
                String title = line.replaceFirst("^#+\\s*", "").strip().toLowerCase(Locale.ROOT);
                StringBuilder sb = new StringBuilder();
                for (char c : title.toCharArray()) {
                    if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                        sb.append(c);
                    } else if (c == ' ') {
                        sb.append('-');
                    }
                }
                out.add(sb.toString());
            }
        }
        return out;
    }
}
