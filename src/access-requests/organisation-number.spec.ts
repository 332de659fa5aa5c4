import { luhnValid, normaliseOrganisationNumber } from './organisation-number';

describe('organisationsnummer', () => {
  it.each([
    ['5560000001', '5560000001'],
    ['556000-0001', '5560000001'],
    [' 556036-0793 ', '5560360793'],
    ['2021005489', '2021005489'],
    ['802002-4280', '8020024280'],
  ])('accepts %j as %s', (input, digits) => {
    expect(normaliseOrganisationNumber(input)).toBe(digits);
  });

  it.each([
    ['a bad check digit', '5560000000'],
    ['a bad check digit, off by one', '5560360792'],
    ['a bad check digit with a dash', '556036-0794'],
    ['too short', '556000001'],
    ['too long', '55600000001'],
    ['12 digits (a personnummer with century)', '195560000001'],
    ['letters', '55600A0001'],
    ['the dash in the wrong place', '5560-000001'],
    ['two dashes', '556000--0001'],
    ['a plus sign', '556000+0001'],
    ['full-width digits', '５５６００００００１'],
    ['empty', ''],
  ])('refuses %s', (_, input) => {
    expect(normaliseOrganisationNumber(input)).toBeNull();
  });

  it('refuses what is not a string', () => {
    expect(normaliseOrganisationNumber(5560000001)).toBeNull();
    expect(normaliseOrganisationNumber(null)).toBeNull();
  });

  it('checks Luhn digits', () => {
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('79927398710')).toBe(false);
    expect(luhnValid('12a')).toBe(false);
  });
});
