import type { Prng } from '../../local/dart-sandbox/prng';

const SENTENCES = [
  (amount: string) => `회사는 신규 시설투자를 위하여 금 ${amount}원을 투자하기로 결정하였습니다.`,
  (amount: string) => `투자금액은 자기자본 대비 상당한 규모이며, 자금은 ${amount}원 한도 내에서 자체자금과 차입금으로 조달합니다.`,
  () => '투자 목적은 생산능력 확대와 원가 경쟁력 확보이며, 투자기간 중 일정은 시장 상황에 따라 변경될 수 있습니다.',
  () => '이사회는 본 건을 만장일치로 가결하였고, 사외이사 전원이 참석하였습니다.',
  () => '향후 진행 경과는 관련 법규에 따라 지체 없이 공시할 예정입니다.',
];

/**
 * A readable document for a soak filing, in DART's markup: the report's title and a body of plain
 * sentences that state the receipt number, so the model double can tell which filing a prompt is
 * about. One in ten is short (below the 1,000 characters that make a reveal free).
 */
export function filingDocument(rceptNo: string, title: string, prng: Prng): string {
  const amount = (prng.int(1, 900) * 100_000_000).toLocaleString('en-US');
  const sentences = prng.chance(0.1) ? 2 : 30;
  const body = [`이 공시의 접수번호는 ${rceptNo}입니다.`];
  for (let i = 0; i < sentences; i++) body.push(SENTENCES[i % SENTENCES.length](amount));
  return (
    `<?xml version="1.0" encoding="utf-8"?><DOCUMENT><DOCUMENT-NAME>${escapeXml(title)}</DOCUMENT-NAME><BODY><SECTION-1>` +
    `<TITLE>${escapeXml(title)}</TITLE><P>${body.join(' ')}</P></SECTION-1></BODY></DOCUMENT>`
  );
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
