// Reference costs of the 25 ASPLOS/EuroSys 2025 IOPDDL contest instances, drawn
// as lines on the cost curve (plots/cost_chart.mjs) when a loaded instance
// matches by name and size. Copied from shared/reference/contest_scores.csv
// (best known cost, the winner's contest cost, XLA's cost, best published lower
// bound); costs are decimal strings because some exceed 2^53.

export const CONTEST_REFERENCES = Object.freeze({
  'asplos-2025-iopddl-A': {
    nodes: 34932,
    edges: 54801,
    timeoutS: 60,
    bestKnown: '6548641531',
    winner: '6569457676',
    xla: '13214846074',
    lowerBound: '6513812172'
  },
  'asplos-2025-iopddl-B': {
    nodes: 816,
    edges: 1096,
    timeoutS: 60,
    bestKnown: '532843',
    winner: '532843',
    xla: '990205',
    lowerBound: '532843'
  },
  'asplos-2025-iopddl-C': {
    nodes: 32894,
    edges: 52234,
    timeoutS: 60,
    bestKnown: '84102445244',
    winner: '84102445260',
    xla: '4195881092919',
    lowerBound: '82509087987'
  },
  'asplos-2025-iopddl-D': {
    nodes: 40958,
    edges: 68635,
    timeoutS: 60,
    bestKnown: '309396217429',
    winner: '313613524736',
    xla: null,
    lowerBound: '298253500099'
  },
  'asplos-2025-iopddl-E': {
    nodes: 59711,
    edges: 93338,
    timeoutS: 60,
    bestKnown: '331239394812',
    winner: '338965335230',
    xla: '6638829816582',
    lowerBound: '323089251082'
  },
  'asplos-2025-iopddl-F': {
    nodes: 65335,
    edges: 102613,
    timeoutS: 120,
    bestKnown: '361354466823',
    winner: '364364563561',
    xla: '2788507105840',
    lowerBound: '353665926894'
  },
  'asplos-2025-iopddl-G': {
    nodes: 816,
    edges: 1023,
    timeoutS: 120,
    bestKnown: '217039',
    winner: '217039',
    xla: '1264777',
    lowerBound: '216931'
  },
  'asplos-2025-iopddl-H': {
    nodes: 56833,
    edges: 91053,
    timeoutS: 120,
    bestKnown: '527715404257',
    winner: '527715404257',
    xla: '7746779635221',
    lowerBound: '508115382755'
  },
  'asplos-2025-iopddl-I': {
    nodes: 62185,
    edges: 100112,
    timeoutS: 120,
    bestKnown: '583706456444',
    winner: '583706456444',
    xla: '6552890513792',
    lowerBound: '556699743834'
  },
  'asplos-2025-iopddl-J': {
    nodes: 60206,
    edges: 102187,
    timeoutS: 120,
    bestKnown: '1325097240507',
    winner: '1360981630371',
    xla: null,
    lowerBound: '1114418889948'
  },
  'asplos-2025-iopddl-K': {
    nodes: 34932,
    edges: 49674,
    timeoutS: 180,
    bestKnown: '2242635784',
    winner: '2274276676',
    xla: null,
    lowerBound: '2065623588'
  },
  'asplos-2025-iopddl-L': {
    nodes: 28526,
    edges: 44512,
    timeoutS: 180,
    bestKnown: '1970993742',
    winner: '1970993742',
    xla: null,
    lowerBound: '1918617707'
  },
  'asplos-2025-iopddl-M': {
    nodes: 32894,
    edges: 47067,
    timeoutS: 180,
    bestKnown: '49928157537',
    winner: '49928460991',
    xla: null,
    lowerBound: '49407421919'
  },
  'asplos-2025-iopddl-N': {
    nodes: 40958,
    edges: 41606,
    timeoutS: 180,
    bestKnown: '199470115118',
    winner: '202739586553',
    xla: null,
    lowerBound: '172940125421'
  },
  'asplos-2025-iopddl-O': {
    nodes: 59711,
    edges: 83862,
    timeoutS: 180,
    bestKnown: '219518764980',
    winner: '222880199765',
    xla: null,
    lowerBound: '191170000000'
  },
  'asplos-2025-iopddl-P': {
    nodes: 65335,
    edges: 100547,
    timeoutS: 240,
    bestKnown: '651833115436',
    winner: '662197407330',
    xla: '651833115436',
    lowerBound: '616246285726'
  },
  'asplos-2025-iopddl-Q': {
    nodes: 56833,
    edges: 91053,
    timeoutS: 240,
    bestKnown: '526776842042',
    winner: '527715368061',
    xla: '1995944800323',
    lowerBound: '505549458726'
  },
  'asplos-2025-iopddl-R': {
    nodes: 62185,
    edges: 54990,
    timeoutS: 240,
    bestKnown: '351826900528',
    winner: '371899551572',
    xla: null,
    lowerBound: '304520000000'
  },
  'asplos-2025-iopddl-S': {
    nodes: 28526,
    edges: 38826,
    timeoutS: 240,
    bestKnown: '1521949307',
    winner: '1534613444',
    xla: null,
    lowerBound: '1511240135'
  },
  'asplos-2025-iopddl-T': {
    nodes: 60206,
    edges: 41764,
    timeoutS: 240,
    bestKnown: '656798881333',
    winner: '682895254913',
    xla: null,
    lowerBound: '585686829498'
  },
  'asplos-2025-iopddl-U': {
    nodes: 34932,
    edges: 20188,
    timeoutS: 300,
    bestKnown: '2443995952',
    winner: '2569342178',
    xla: null,
    lowerBound: '2018900000'
  },
  'asplos-2025-iopddl-V': {
    nodes: 816,
    edges: 1023,
    timeoutS: 300,
    bestKnown: '1617084',
    winner: '2213404',
    xla: null,
    lowerBound: '1617084'
  },
  'asplos-2025-iopddl-W': {
    nodes: 60206,
    edges: 101975,
    timeoutS: 300,
    bestKnown: '11614976869921',
    winner: '904000028847754848168',
    xla: null,
    lowerBound: '10728053095208'
  },
  'asplos-2025-iopddl-X': {
    nodes: 59711,
    edges: 50755,
    timeoutS: 300,
    bestKnown: '278109753175',
    winner: '280461191177',
    xla: null,
    lowerBound: '244891532778'
  },
  'asplos-2025-iopddl-Y': {
    nodes: 62185,
    edges: 91020,
    timeoutS: 300,
    bestKnown: '595085773411',
    winner: '621176568278',
    xla: null,
    lowerBound: '495260745493'
  },
});

/** The reference entry for a model summary, or null (name and size must match). */
export function contestReference(info) {
  const ref = CONTEST_REFERENCES[info.name];
  return ref && ref.nodes === info.nodes && ref.edges === info.edges ? ref : null;
}
