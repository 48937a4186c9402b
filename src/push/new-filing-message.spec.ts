import { digestText, newFilingMessage } from './new-filing-message';

describe('newFilingMessage', () => {
  const filing = {
    rceptNo: '20261120000123',
    corpCode: '00126380',
    corpName: '삼성전자',
    reportName: '주요사항보고서(유상증자결정)',
    oneLiner: null,
  };

  it('titles the notification with the company and carries the one-line summary as the body', () => {
    const summarised = { ...filing, oneLiner: '삼성전자, 3,000억 원 규모 유상증자 결정' };
    expect(newFilingMessage('token-a', summarised)).toEqual({
      token: 'token-a',
      title: '삼성전자',
      body: '삼성전자, 3,000억 원 규모 유상증자 결정',
      data: { rcept_no: '20261120000123', corp_code: '00126380' },
      collapseKey: '20261120000123',
    });
  });

  it('says what it filed, in Korean, when the summary was not there in time', () => {
    expect(newFilingMessage('token-a', filing)).toEqual({
      token: 'token-a',
      title: '삼성전자',
      body: '새 공시: 주요사항보고서(유상증자결정)',
      data: { rcept_no: '20261120000123', corp_code: '00126380' },
      collapseKey: '20261120000123',
    });
  });

  it('cuts a very long report name and never sends an empty title', () => {
    const message = newFilingMessage('token-a', { ...filing, corpName: '  ', reportName: '가'.repeat(500) });
    expect(message.title).toBe('새 공시');
    expect(message.body).toHaveLength(120);
    expect(message.body.endsWith('…')).toBe(true);
    expect(message.body.startsWith('새 공시: 가가')).toBe(true);
  });

  it('sends a text fixed earlier as it is, still opening the filing', () => {
    const message = newFilingMessage('token-a', filing, { title: '관심 기업 새 공시 2건', body: '삼성전자, 카카오' });
    expect(message).toEqual({
      token: 'token-a',
      title: '관심 기업 새 공시 2건',
      body: '삼성전자, 카카오',
      data: { rcept_no: '20261120000123', corp_code: '00126380' },
      collapseKey: '20261120000123',
    });
  });
});

describe('digestText', () => {
  it('counts the filings and names each company once, newest first', () => {
    expect(digestText([{ corpName: '카카오' }, { corpName: '삼성전자' }, { corpName: '카카오' }])).toEqual({
      title: '관심 기업 새 공시 3건',
      body: '카카오, 삼성전자',
    });
  });

  it('names three companies and counts the rest', () => {
    const filings = ['A', 'B', 'C', 'D', 'E'].map((corpName) => ({ corpName }));
    expect(digestText(filings)).toEqual({ title: '관심 기업 새 공시 5건', body: 'A, B, C 외 2곳' });
  });
});
