import type { Prng } from './prng';

/** Syllables common in Korean company names, with the romanisation used for English names. */
const SYLLABLES: ReadonlyArray<readonly [string, string]> = [
  ['한', 'Han'],
  ['대', 'Dae'],
  ['동', 'Dong'],
  ['삼', 'Sam'],
  ['성', 'Sung'],
  ['신', 'Shin'],
  ['세', 'Se'],
  ['우', 'Woo'],
  ['현', 'Hyun'],
  ['진', 'Jin'],
  ['광', 'Kwang'],
  ['태', 'Tae'],
  ['영', 'Young'],
  ['일', 'Il'],
  ['국', 'Kook'],
  ['미', 'Mi'],
  ['래', 'Rae'],
  ['코', 'Ko'],
  ['리', 'Ri'],
  ['아', 'A'],
  ['정', 'Jung'],
  ['명', 'Myung'],
  ['화', 'Hwa'],
  ['원', 'Won'],
  ['상', 'Sang'],
  ['해', 'Hae'],
  ['금', 'Keum'],
  ['호', 'Ho'],
  ['유', 'Yoo'],
  ['선', 'Sun'],
  ['경', 'Kyung'],
  ['인', 'In'],
  ['서', 'Seo'],
  ['전', 'Jeon'],
  ['남', 'Nam'],
  ['제', 'Je'],
  ['효', 'Hyo'],
  ['조', 'Jo'],
  ['오', 'O'],
  ['에', 'E'],
  ['스', 'S'],
  ['티', 'T'],
  ['엘', 'L'],
  ['비', 'Bi'],
  ['나', 'Na'],
  ['라', 'Ra'],
  ['온', 'On'],
  ['빛', 'Bit'],
  ['솔', 'Sol'],
  ['하', 'Ha'],
  ['늘', 'Neul'],
  ['누', 'Nu'],
  ['다', 'Da'],
  ['이', 'I'],
  ['로', 'Ro'],
  ['젠', 'Gen'],
  ['텍', 'Tek'],
  ['넥', 'Nex'],
  ['웰', 'Well'],
];

/** Business words that end names, with their English counterpart. */
const SUFFIXES: ReadonlyArray<readonly [string, string]> = [
  ['전자', 'Electronics'],
  ['바이오', 'Bio'],
  ['제약', 'Pharmaceutical'],
  ['화학', 'Chemical'],
  ['건설', 'Construction'],
  ['홀딩스', 'Holdings'],
  ['에너지', 'Energy'],
  ['반도체', 'Semiconductor'],
  ['엔터', 'Entertainment'],
  ['테크', 'Tech'],
  ['산업', 'Industrial'],
  ['물산', 'Trading'],
  ['중공업', 'Heavy Industries'],
  ['증권', 'Securities'],
  ['금융지주', 'Financial Group'],
  ['소프트', 'Soft'],
  ['푸드', 'Foods'],
  ['로직스', 'Logis'],
  ['머티리얼즈', 'Materials'],
  ['시스템', 'Systems'],
  ['네트웍스', 'Networks'],
  ['디스플레이', 'Display'],
  ['모빌리티', 'Mobility'],
  ['게임즈', 'Games'],
  ['헬스케어', 'Healthcare'],
  ['메디칼', 'Medical'],
  ['정밀', 'Precision'],
  ['통신', 'Telecom'],
  ['제지', 'Paper'],
  ['해운', 'Shipping'],
  ['개발', 'Development'],
  ['상사', 'Corporation'],
  ['솔루션즈', 'Solutions'],
  ['이앤씨', 'E&C'],
];

/** Endings that are typical of unlisted entities: funds, partnerships, special-purpose companies. */
const UNLISTED_SUFFIXES: ReadonlyArray<readonly [string, string]> = [
  ['유한회사', 'Ltd.'],
  ['투자조합', 'Investment Partnership'],
  ['파트너스', 'Partners'],
  ['인베스트먼트', 'Investment'],
  ['자산운용', 'Asset Management'],
  ['캐피탈', 'Capital'],
  ['리츠', 'REIT'],
  ['농업회사법인', 'Agricultural Corporation'],
];

const LATIN = [...'ABCDEFGHIJKLMNOPRSTUVWY'];

const SURNAMES = ['김', '이', '박', '최', '정', '강', '조', '윤', '장', '임', '한', '오', '서', '신', '권', '황', '안', '송', '류', '홍'];
const GIVEN = ['민', '서', '준', '현', '지', '수', '영', '호', '성', '은', '재', '우', '진', '희', '경', '철', '동', '혜', '석', '원'];

/** Holders that file ownership reports (5 % rule) besides people. */
export const INSTITUTIONS = [
  '국민연금공단',
  '삼성자산운용',
  '미래에셋자산운용',
  '한국투자신탁운용',
  '브이아이피자산운용',
  'BlackRock Fund Advisors',
  'The Capital Group Companies, Inc.',
  'Norges Bank',
];

export interface GeneratedName {
  name: string;
  engName: string;
}

/** A Korean name ("한성바이오") or a Latin one ("HK&S", "DN솔루션즈"), with an English name or '' as many entries have. */
export function companyName(rng: Prng, unlisted: boolean): GeneratedName {
  if (rng.chance(0.08)) return latinName(rng);
  const syllables = rng.chance(0.3) ? 3 : 2;
  let name = '';
  let eng = '';
  for (let i = 0; i < syllables; i++) {
    const [ko, en] = rng.pick(SYLLABLES);
    name += ko;
    eng += i === 0 ? en : en.toLowerCase();
  }
  const [suffixKo, suffixEn] = unlisted && rng.chance(0.25) ? rng.pick(UNLISTED_SUFFIXES) : rng.pick(SUFFIXES);
  const withSuffix = rng.chance(0.85);
  if (withSuffix) name += suffixKo;
  const hasEnglish = unlisted ? rng.chance(0.55) : rng.chance(0.95);
  const engName = hasEnglish ? `${eng}${withSuffix ? ` ${suffixEn}` : ''} Co., Ltd.` : '';
  return { name, engName };
}

function latinName(rng: Prng): GeneratedName {
  const letters = (count: number): string => Array.from({ length: count }, () => rng.pick(LATIN)).join('');
  // Names like 'KT&G' or 'S&T': the ampersand must survive XML escaping.
  let name = rng.chance(0.3) ? `${letters(rng.int(1, 2))}&${letters(1)}` : letters(rng.int(2, 4));
  let eng = name;
  if (rng.chance(0.45)) {
    const [ko, en] = rng.pick(SUFFIXES);
    name += ko;
    eng += ` ${en}`;
  }
  return { name, engName: `${eng} Corp.` };
}

export function personName(rng: Prng): string {
  return rng.pick(SURNAMES) + rng.pick(GIVEN) + rng.pick(GIVEN);
}

const CITIES: ReadonlyArray<readonly [string, string[]]> = [
  ['서울특별시', ['강남구', '서초구', '영등포구', '중구', '종로구', '마포구', '금천구', '구로구', '송파구']],
  ['경기도', ['성남시 분당구', '수원시 영통구', '화성시', '평택시', '안산시 단원구', '용인시 기흥구']],
  ['인천광역시', ['연수구', '남동구', '서구']],
  ['부산광역시', ['해운대구', '사상구', '강서구']],
  ['대전광역시', ['유성구', '대덕구']],
  ['충청북도', ['청주시 흥덕구', '오송읍']],
  ['경상남도', ['창원시 성산구', '김해시', '거제시']],
];
const ROADS = ['테헤란로', '세종대로', '여의대로', '판교로', '디지털로', '산업로', '중앙로', '첨단로', '과학로'];

export function address(rng: Prng): string {
  const [city, districts] = rng.pick(CITIES);
  return `${city} ${rng.pick(districts)} ${rng.pick(ROADS)} ${rng.int(1, 400)}`;
}

/** Korean industry codes (KSIC) as company.json gives them: 3 to 5 digits. */
export const INDUSTRY_CODES = ['264', '26110', '21210', '20111', '41221', '58221', '64992', '70113', '62010', '10309', '30121', '35111'];
