# One-off check for the README split (issue 20), not a ctest:
#   git show a1b3994:README.md >/tmp/old.md
#   python3 tests/docs/readme_coverage.py /tmp/old.md   (from the repository root)
# Every sentence and table row of the old README must appear in the new
# README + docs/*.md (link targets and whitespace normalised).
import re, sys, glob
old = open(sys.argv[1]).read()
new = ''.join(open(f).read() for f in ['README.md'] + sorted(glob.glob('docs/*.md')))
def norm(t):
    t = re.sub(r'\]\([^)]*\)', ']', t)          # link targets moved
    t = re.sub(r'^#+ ', '', t, flags=re.M)      # heading levels changed
    t = re.sub(r'\s+', ' ', t)
    return t
newn = norm(new)
units = []
blocks = re.split(r'\n\s*\n', old)
for b in blocks:
    lines = b.split('\n')
    if all(l.startswith('|') for l in lines if l.strip()):
        units += [l for l in lines if l.strip() and not re.match(r'^\|[-| ]+\|$', l)]
    elif b.lstrip().startswith('```'):
        units += [l for l in lines if l.strip() and not l.startswith('```')]
    else:
        for s in re.split(r'(?<=[.:;])\s+(?=[A-Z*`(\-])|\n- |\n  - ', norm(b)):
            if s.strip(): units.append(s)
missing = [u for u in units if norm(u).strip() not in newn]
print(f'{len(units)} units, {len(units)-len(missing)} found, {len(missing)} missing')
for m in missing: print('MISSING:', norm(m).strip()[:300])
